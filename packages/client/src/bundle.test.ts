import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

describe('browser bundle of @calsync/client', () => {
  it('bundles for the browser platform with no Node built-in imported; prints its min+gzip size', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      metafile: true,
      conditions: ['source'],
      logLevel: 'silent',
    });
    const imported = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(imported.filter((p) => NODE_BUILTINS.has(p))).toEqual([]);
    expect(Object.keys(result.metafile.inputs).filter((p) => p.startsWith('node:'))).toEqual([]);
    const code = result.outputFiles[0]!.contents;
    const gzip = gzipSync(code, { level: 9 }).length;
    console.log(`@calsync/client browser bundle: ${(code.length / 1024).toFixed(1)} KiB min, ${(gzip / 1024).toFixed(1)} KiB min+gzip`);
    // The bundle runs: its exports are there.
    const text = new TextDecoder().decode(code);
    expect(text).toContain('createSyncClient');
  });
});
