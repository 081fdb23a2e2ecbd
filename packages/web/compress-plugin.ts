import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Text files worth compressing (source maps are not: only a debugger fetches them). */
const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest)$/;
/** Below this size a compressed copy saves less than its headers cost. */
const MIN_BYTES = 1024;

/**
 * Writes a gzip (`.gz`) and a brotli (`.br`) copy next to every built text file, once, at build
 * time. The calsync server serves them (`preCompressed`) to browsers that accept the encoding, so
 * the entry chunk travels at about a third of its size without compressing it at every request.
 */
export function compressedCopiesPlugin(): Plugin {
  let outDir = 'dist';
  return {
    name: 'calsync-compressed-copies',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!COMPRESSIBLE.test(fileName)) continue;
        const source = output.type === 'chunk' ? Buffer.from(output.code) : Buffer.from(output.source);
        if (source.length < MIN_BYTES) continue;
        writeFileSync(join(outDir, `${fileName}.gz`), gzipSync(source, { level: 9 }));
        writeFileSync(
          join(outDir, `${fileName}.br`),
          brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: source.length } }),
        );
      }
    },
  };
}
