import { readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// What each production package's build (its tsconfig.json, as `tsc -b` runs it) compiles into
// dist/: the package's own files among everything the program reaches. Test support lives outside
// `src` (`test-support/`, testkit, `*.test.ts`), so none of it may be among them, nor reached by an
// import from them.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const productionPackages = readdirSync(join(root, 'packages')).filter((name) => name !== 'testkit');

function isTestSupport(file: string): boolean {
  const path = relative(root, file).split(sep).join('/');
  return /\.test\.ts$/.test(path) || /\/test-support\//.test(path) || path.startsWith('packages/testkit/');
}

describe('production builds', () => {
  it.each(productionPackages)('packages/%s/dist holds no test support', (name) => {
    const configPath = join(root, 'packages', name, 'tsconfig.json');
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    expect(parsed.errors).toEqual([]);
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    const ours = program
      .getSourceFiles()
      .map((f) => f.fileName)
      .filter((f) => !f.includes('/node_modules/'));
    const emitted = ours.filter((f) => f.startsWith(join(root, 'packages', name, 'src')));
    expect(emitted.length).toBeGreaterThan(0);
    expect(ours.filter(isTestSupport)).toEqual([]);
  });
});
