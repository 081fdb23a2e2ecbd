/* global process, console */
// The `prepack` of every publishable package (run by `pnpm pack` / `pnpm publish` in the package's
// folder): builds the package and the packages it references with `tsc -b`, then checks that the
// published exports map (`publishConfig.exports`) is the workspace map without the workspace-only
// `source` condition and that every file it names was built, so no tarball ships without dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-b', '.'], { stdio: 'inherit' });

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const expected = Object.fromEntries(
  Object.entries(pkg.exports)
    .map(([path, conditions]) => [path, Object.fromEntries(Object.entries(conditions).filter(([c]) => c !== 'source'))])
    .filter(([, conditions]) => Object.keys(conditions).length > 0),
);
const problems = [];
if (JSON.stringify(pkg.publishConfig?.exports) !== JSON.stringify(expected)) {
  problems.push(`publishConfig.exports must be the exports map without "source" entries:\n${JSON.stringify(expected, null, 2)}`);
}
for (const file of Object.values(expected).flatMap((conditions) => Object.values(conditions))) {
  if (!existsSync(file)) problems.push(`${file} was not built`);
}
if (problems.length > 0) {
  console.error(`prepack ${pkg.name}:\n${problems.join('\n')}`);
  process.exit(1);
}
