#!/usr/bin/env -S node --max-semi-space-size=2 --v8-pool-size=0
/**
 * The `tributary` bin. The program itself is program.ts; this module only
 * chooses where to load it from, so that it imports almost nothing:
 * `tributary start` runs the start-up bundle made from program.js when that
 * bundle is fresh (start-bundle.ts: a few files instead of about 250
 * modules, compiled with a V8 code cache: bundle-loader.ts), everything else
 * runs the modules of dist/src.
 *
 * Node flags (the first line; `npm start` passes the same): a young
 * generation of at most 2 MiB per semi-space instead of V8's 16. A broker
 * makes a few KB of short-lived garbage per request; with 16 MiB semi-spaces
 * each scavenge came every ~0.2 s at 10,000 requests/s and held the loop for
 * 1-17 ms (much of it sweeping young ArrayBuffers), which was the
 * end-to-end p99.9. Scavenges of 2 MiB come four times as often and stop the
 * loop for well under 1 ms each: steady p99.9 about 3-4 ms instead of
 * 12-24 ms, for about 0.3% more CPU (bench/README.md, "Tail latency: the
 * young generation's size"). And V8's pool of background threads sized by
 * node to the spare cores (`--v8-pool-size=0`: one on 2 cores) instead of a
 * fixed 4: its concurrent GC marking then takes at most the cores the event
 * loop leaves, where 4 threads took both cores for 10 ms at a time and the
 * clients on the machine (and the loop) waited for a CPU; that was the
 * end-to-end p99.9 after a few GB had gone through (bench/README.md, "The
 * e2e tail and the scheduler"). The code cache (bundle-loader.ts) is made
 * under these flags, so runs with other flags rewrite it.
 *
 * Exit codes, for every subcommand: 0 success, 1 runtime failure, 2 usage
 * error (unknown command or option, bad or missing argument, invalid config).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { subcommandOf } from './argv.js';
import { BundleLoader } from './bundle-loader.js';
import { freshStartBundle } from './start-bundle.js';

type Program = typeof import('./program.js');

/**
 * How long after the broker serves the bundle's code cache is written (when
 * it has none): late enough to hold the functions the first requests compile,
 * and off the start itself.
 */
const CODE_CACHE_DELAY_MS = 1000;

/** The full program (every command). */
export async function buildProgram(): Promise<Command> {
  return (await import('./program.js')).buildProgram();
}

/** Runs the CLI; resolves with the exit code (it does not call process.exit itself). */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const bundle = subcommandOf(argv) === 'start' ? freshStartBundle() : null;
  if (bundle === null) return (await import('./program.js')).main(argv);
  const loader = new BundleLoader();
  const program = loader.load(fileURLToPath(bundle)) as Program;
  return program.main(argv, { onStarted: () => setTimeout(() => loader.saveCodeCaches(), CODE_CACHE_DELAY_MS).unref() });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1; // EXIT_RUNTIME (start.ts), not imported here to keep this module small
    },
  );
}
