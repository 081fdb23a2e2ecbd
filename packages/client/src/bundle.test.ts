import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/** The domain's server-only folders: cursor codec, fingerprints, OTP and tokens, ports, the sync engine. */
const SERVER_MODULE = /packages\/domain\/src\/(auth|cursor|feeds|ports|sync)\//;

/**
 * Bundles `entry` for the browser; `code` is what loads first: the entry chunk and the chunks it
 * imports statically (an import made on first use, like the .ics importer, is a chunk of its own).
 */
async function browserBundle(entry: string): Promise<{ metafile: Metafile; code: Uint8Array; chunks: number }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    splitting: true,
    outdir: 'out',
    metafile: true,
    conditions: ['source'],
    logLevel: 'silent',
    // Kept as imports (not a build error), so the metafile lists them and the test names them.
    external: ['node:*'],
  });
  const entryOut = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint !== undefined)![0];
  const loadedFirst = [entryOut, ...result.metafile.outputs[entryOut]!.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path)];
  const code = Buffer.concat(loadedFirst.map((out) => result.outputFiles.find((f) => f.path.endsWith(out))!.contents));
  return { metafile: result.metafile, code, chunks: result.outputFiles.length };
}

/** What the metafile says a bundle holds that a browser must not: Node built-ins and server modules. */
function serverParts(metafile: Metafile): string[] {
  const imported = Object.values(metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
  return [
    ...imported.filter((p) => NODE_BUILTINS.has(p) || p.startsWith('node:')),
    ...Object.keys(metafile.inputs).filter((p) => p.startsWith('node:') || SERVER_MODULE.test(p)),
  ];
}

const size = (code: Uint8Array): string => `${(code.length / 1024).toFixed(1)} KiB min, ${(gzipSync(code, { level: 9 }).length / 1024).toFixed(1)} KiB min+gzip`;

describe('browser bundles', () => {
  it('@calsync/client holds no Node built-in and no server module of the domain; prints its min+gzip size', async () => {
    const { metafile, code, chunks } = await browserBundle(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect(serverParts(metafile)).toEqual([]);
    // The SDK runs the domain's own rules: the field tables, the cascade walk, the expander.
    const domainInputs = Object.keys(metafile.inputs).filter((p) => p.includes('packages/domain/src/'));
    expect(domainInputs).toEqual(expect.arrayContaining([expect.stringMatching(/records\/field-tables\.ts$/), expect.stringMatching(/rules\/references\.ts$/), expect.stringMatching(/calendar\/expand-occurrences\.ts$/)]));
    console.log(`@calsync/client browser bundle: loaded first ${size(code)} (${chunks} chunks in all)`);
    expect(new TextDecoder().decode(code)).toContain('createSyncClient');
  });

  it('@calsync/domain/rules holds no Node built-in and no server module', async () => {
    const { metafile, code } = await browserBundle(fileURLToPath(new URL('../../domain/src/rules/index.ts', import.meta.url)));
    expect(serverParts(metafile)).toEqual([]);
    console.log(`@calsync/domain/rules browser bundle: ${size(code)}`);
  });

  it('@calsync/wire (the schemas an app may validate with) holds no Node built-in and no server module', async () => {
    const { metafile } = await browserBundle(fileURLToPath(new URL('../../wire/src/index.ts', import.meta.url)));
    expect(serverParts(metafile)).toEqual([]);
  });

  it('the check sees server code when it is there: the domain root entry fails it', async () => {
    const { metafile } = await browserBundle(fileURLToPath(new URL('../../domain/src/index.ts', import.meta.url)));
    expect(serverParts(metafile)).toEqual(expect.arrayContaining(['node:crypto', expect.stringMatching(/cursor\/cursor-codec\.ts$/)]));
  });
});
