/**
 * The plugin registry: built-in connectors, converters, transforms and
 * predicates, plus those loaded from `plugin.path`. Each `plugin.path` entry
 * is a directory holding plugins: an npm package directory (its
 * package.json `main`), a sub-directory that is one, or a `.js`/`.mjs` file.
 * A plugin module exports `connectPlugins`:
 *
 *   export const connectPlugins = {
 *     connectors: { 'com.example.MySourceConnector': MySourceConnector },
 *     converters: { ... }, transforms: { ... }, predicates: { ... },
 *   };
 *
 * Connectors are found by full class name, by the last dotted segment
 * (`MySourceConnector`), or by that without the `Connector` suffix
 * (`MySource`), as Kafka's plugin aliases.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILTIN_CONVERTERS, type ConverterClass } from './converters/index.js';
import { FileStreamSinkConnector } from './file/sink.js';
import { FileStreamSourceConnector } from './file/source.js';
import { POSTGRES_CONNECTORS } from './postgres/index.js';
import type { Connector, ConnectorClass } from './spi.js';
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS, lookupByName, type TransformResolver } from './transforms/index.js';
import type { PredicateClass, TransformationClass } from './transforms/transformation.js';

/** What a plugin module exports as `connectPlugins`. */
export interface ConnectPluginManifest {
  connectors?: Readonly<Record<string, ConnectorClass>>;
  converters?: Readonly<Record<string, ConverterClass>>;
  transforms?: Readonly<Record<string, TransformationClass>>;
  predicates?: Readonly<Record<string, PredicateClass>>;
}

/** A connector plugin as GET /connector-plugins lists it. */
export interface ConnectorPluginInfo {
  class: string;
  type: 'source' | 'sink';
  version: string;
}

/** A `plugin.path` entry or plugin module that cannot be loaded. */
export class PluginLoadError extends Error {
  override readonly name = 'PluginLoadError';
}

function simpleName(className: string): string {
  return className.slice(className.lastIndexOf('.') + 1);
}

/** The plugin registry: connector, converter, transform and predicate classes by name, built-ins plus those loaded from `plugin.path`. */
export class Plugins implements TransformResolver {
  readonly connectors = new Map<string, ConnectorClass>([
    ['org.apache.kafka.connect.file.FileStreamSourceConnector', FileStreamSourceConnector],
    ['org.apache.kafka.connect.file.FileStreamSinkConnector', FileStreamSinkConnector],
    ...POSTGRES_CONNECTORS,
  ]);
  readonly converters = new Map(BUILTIN_CONVERTERS);
  readonly transforms = new Map(BUILTIN_TRANSFORMS);
  readonly predicates = new Map(BUILTIN_PREDICATES);

  /** Adds the classes a manifest exports (a later plugin with the same class name wins). */
  register(manifest: ConnectPluginManifest): void {
    for (const [k, v] of Object.entries(manifest.connectors ?? {})) this.connectors.set(k, v);
    for (const [k, v] of Object.entries(manifest.converters ?? {})) this.converters.set(k, v);
    for (const [k, v] of Object.entries(manifest.transforms ?? {})) this.transforms.set(k, v);
    for (const [k, v] of Object.entries(manifest.predicates ?? {})) this.predicates.set(k, v);
  }

  /** Loads every plugin under the comma-separated `plugin.path` directories. */
  async loadPluginPath(pluginPath: string | undefined): Promise<void> {
    for (const dir of (pluginPath ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
      const root = resolve(dir);
      if (!existsSync(root) || !statSync(root).isDirectory()) throw new PluginLoadError(`plugin.path entry ${root} is not a directory`);
      for (const entry of pluginEntries(root)) await this.loadModule(entry);
    }
  }

  private async loadModule(path: string): Promise<void> {
    let mod: { connectPlugins?: ConnectPluginManifest };
    try {
      mod = (await import(pathToFileURL(path).href)) as { connectPlugins?: ConnectPluginManifest };
    } catch (err) {
      throw new PluginLoadError(`cannot load plugin ${path}: ${(err as Error).message}`);
    }
    if (mod.connectPlugins === undefined) throw new PluginLoadError(`plugin ${path} exports no connectPlugins manifest`);
    this.register(mod.connectPlugins);
  }

  /** The connector class for a full name or alias, or undefined. */
  connectorClass(name: string): { className: string; cls: ConnectorClass } | undefined {
    const direct = this.connectors.get(name);
    if (direct !== undefined) return { className: name, cls: direct };
    for (const [full, cls] of this.connectors) {
      const simple = simpleName(full);
      if (simple === name || (simple.endsWith('Connector') && simple.slice(0, -'Connector'.length) === name)) return { className: full, cls };
    }
    return undefined;
  }

  /** A new instance of the connector with that full name or alias, with its full class name; undefined when there is none. */
  newConnector(name: string): { className: string; connector: Connector } | undefined {
    const found = this.connectorClass(name);
    return found === undefined ? undefined : { className: found.className, connector: new found.cls() };
  }

  /** The converter class with that name, or undefined. */
  converterClass(name: string): ConverterClass | undefined {
    return lookupByName(this.converters, name);
  }

  /** The transformation class with that name, or undefined. */
  transform(name: string): TransformationClass | undefined {
    return lookupByName(this.transforms, name);
  }

  /** The predicate class with that name, or undefined. */
  predicate(name: string): PredicateClass | undefined {
    return lookupByName(this.predicates, name);
  }

  /** Every registered connector with its type and version, sorted by class name (GET /connector-plugins). */
  connectorPlugins(): ConnectorPluginInfo[] {
    return [...this.connectors.entries()]
      .map(([className, cls]) => {
        const c = new cls();
        return { class: className, type: c.type, version: c.version() };
      })
      .sort((a, b) => a.class.localeCompare(b.class));
  }
}

/** The module files of a plugin.path directory: packages, sub-packages and loose module files. */
function pluginEntries(root: string): string[] {
  const asPackage = packageMain(root);
  if (asPackage !== null) return [asPackage];
  const out: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) {
      const main = packageMain(path);
      if (main !== null) out.push(main);
    } else if (name.endsWith('.js') || name.endsWith('.mjs')) {
      out.push(path);
    }
  }
  return out;
}

function packageMain(dir: string): string | null {
  const pkgPath = join(dir, 'package.json');
  if (!existsSync(pkgPath)) return null;
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { main?: unknown; exports?: unknown };
  const main = typeof pkg.exports === 'string' ? pkg.exports : typeof pkg.main === 'string' ? pkg.main : 'index.js';
  return join(dir, main);
}
