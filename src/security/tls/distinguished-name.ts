/**
 * A certificate's subject as Java's `X500Principal.getName()` writes it
 * (RFC 2253), because that string is what Kafka's
 * `ssl.principal.mapping.rules` match against and what its default principal
 * is (`User:CN=alice,OU=eng,O=Acme,C=US`): the relative distinguished names
 * from the most specific (last in the certificate) to the least, joined by
 * ','; the attributes of a multi-valued RDN joined by '+'; the keywords CN,
 * C, L, ST, O, OU, STREET, DC and UID, any other attribute as its dotted OID
 * with the value as '#' and the hex of its DER encoding; in string values
 * the characters `,=+<>#;"\` escaped with a backslash, NUL as `\00`, and
 * leading or trailing blanks escaped.
 *
 * The subject is read from the certificate's DER directly (no dependency on
 * OpenSSL's own printing, which orders and escapes differently).
 */

interface Tlv {
  readonly tag: number;
  /** The whole element (tag, length and content). */
  readonly full: Buffer;
  readonly content: Buffer;
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
const CONTEXT_0 = 0xa0;

/** One DER element at `offset`; throws on anything malformed (the caller treats the certificate as unreadable). */
function readTlv(buf: Buffer, offset: number): Tlv {
  if (offset + 2 > buf.length) throw new Error('truncated DER');
  const tag = buf[offset] as number;
  let length = buf[offset + 1] as number;
  let header = 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || offset + 2 + bytes > buf.length) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (buf[offset + 2 + i] as number);
    header += bytes;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new Error('truncated DER');
  return { tag, full: buf.subarray(offset, end), content: buf.subarray(offset + header, end) };
}

function children(parent: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < parent.length; ) {
    const t = readTlv(parent, at);
    out.push(t);
    at += t.full.length;
  }
  return out;
}

function oidText(content: Buffer): string {
  const first = content[0] ?? 0;
  const parts = [Math.min(2, Math.floor(first / 40)), first - Math.min(2, Math.floor(first / 40)) * 40];
  let value = 0;
  for (const byte of content.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** Java's RFC 2253 keywords (X500Principal.RFC2253). */
const KEYWORDS: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.10': 'O', '2.5.4.11': 'OU',
  '2.5.4.9': 'STREET', '0.9.2342.19200300.100.1.25': 'DC', '0.9.2342.19200300.100.1.1': 'UID',
};

/** UTF8String, PrintableString, T61String, IA5String, GeneralString, BMPString: Java's DER strings. */
const STRING_TAGS = new Set([0x0c, 0x13, 0x14, 0x16, 0x1b, 0x1e]);

function decodeString(tag: number, content: Buffer): string {
  if (tag === 0x1e) {
    // BMPString is UTF-16 big-endian; node decodes little-endian.
    const copy = Buffer.from(content.subarray(0, content.length - (content.length % 2)));
    return copy.swap16().toString('utf16le');
  }
  if (tag === 0x14) return content.toString('latin1');
  return content.toString('utf8');
}

const ESCAPED = ',=+<>#;"\\';

function escapeValue(value: string): string {
  let out = '';
  for (const c of value) out += c === '\u0000' ? '\\00' : ESCAPED.includes(c) ? `\\${c}` : c;
  // Leading and trailing blanks (space, CR) are escaped too.
  const lead = /^[ \r]*/.exec(out)?.[0].length ?? 0;
  const trail = /[ \r]*$/.exec(out)?.[0].length ?? 0;
  if (lead === out.length) return out.replace(/[ \r]/g, (c) => `\\${c}`);
  const head = out.slice(0, lead).replace(/[ \r]/g, (c) => `\\${c}`);
  const tail = out.slice(out.length - trail).replace(/[ \r]/g, (c) => `\\${c}`);
  return head + out.slice(lead, out.length - trail) + tail;
}

function attributeText(attribute: Tlv): string {
  const [type, value] = children(attribute.content);
  if (type === undefined || value === undefined || type.tag !== OID) throw new Error('bad AttributeTypeAndValue');
  const oid = oidText(type.content);
  const keyword = KEYWORDS[oid];
  if (keyword === undefined || !STRING_TAGS.has(value.tag)) return `${keyword ?? oid}=#${value.full.toString('hex')}`;
  return `${keyword}=${escapeValue(decodeString(value.tag, value.content))}`;
}

/** RFC 2253 text of an X.501 Name (the DER SEQUENCE of RDN SETs). */
export function distinguishedName(nameDer: Buffer): string {
  const name = readTlv(nameDer, 0);
  if (name.tag !== SEQUENCE) throw new Error('a Name is a SEQUENCE');
  const rdns = children(name.content).map((rdn) => {
    if (rdn.tag !== SET) throw new Error('an RDN is a SET');
    return children(rdn.content).map(attributeText).join('+');
  });
  return rdns.reverse().join(',');
}

/**
 * The subject of a DER certificate (Certificate → tbsCertificate → subject,
 * after the optional version, serial, signature algorithm, issuer, validity).
 * Throws when the bytes are not a certificate.
 */
export function certificateSubject(certificateDer: Buffer): string {
  const certificate = readTlv(certificateDer, 0);
  const tbs = children(certificate.content)[0];
  if (certificate.tag !== SEQUENCE || tbs === undefined || tbs.tag !== SEQUENCE) throw new Error('not an X.509 certificate');
  const fields = children(tbs.content);
  const skip = fields[0]?.tag === CONTEXT_0 ? 1 : 0;
  const subject = fields[skip + 4];
  if (subject === undefined) throw new Error('certificate without a subject');
  return distinguishedName(subject.full);
}
