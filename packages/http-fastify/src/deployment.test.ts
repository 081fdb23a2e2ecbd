import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARS } from './config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const known = new Set(CONFIG_VARS.map((v) => v.name));

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(`${root}docker-compose.yml`, 'utf8')) as {
    services: Record<string, { image?: string; build?: unknown; environment?: Record<string, unknown>; depends_on?: Record<string, unknown> | string[]; profiles?: string[]; volumes?: string[]; command?: string[] }>;
  };

  it('runs PostgreSQL 15 and the service built from this repository', () => {
    expect(compose.services.postgres?.image).toBe('postgres:15');
    expect(compose.services.app?.build).toBeDefined();
    expect(Object.keys(compose.services.app?.depends_on ?? {})).toContain('postgres');
  });

  it('has an optional Prometheus (profile monitoring) that scrapes the app with the alert rules loaded', () => {
    const prometheus = compose.services.prometheus;
    expect(prometheus?.profiles).toEqual(['monitoring']);
    expect(Object.entries(compose.services).filter(([, s]) => s.profiles === undefined).map(([name]) => name).sort()).toEqual(['app', 'postgres']);
    const mounts = new Map((prometheus?.volumes ?? []).map((v) => v.split(':')).map(([from, to]) => [to, from] as const));
    expect(mounts.get('/etc/prometheus/alerts.yml')).toBe('./ops/prometheus/alerts.yml');
    expect(mounts.get('/etc/prometheus/prometheus.yml')).toBe('./ops/prometheus/prometheus.yml');
    const config = parse(readFileSync(`${root}ops/prometheus/prometheus.yml`, 'utf8')) as { rule_files: string[]; scrape_configs: { metrics_path: string; static_configs: { targets: string[] }[] }[] };
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(config.scrape_configs[0]?.metrics_path).toBe('/metrics');
    expect(config.scrape_configs[0]?.static_configs[0]?.targets).toEqual(['app:3000']);
  });

  it('sets only variables the config table knows on the service', () => {
    const env = Object.keys(compose.services.app?.environment ?? {});
    expect(env.length).toBeGreaterThan(5);
    expect(env.filter((name) => !known.has(name))).toEqual([]);
    expect(String(compose.services.app?.environment?.DATABASE_URL)).toMatch(/^postgres:\/\/.+@postgres:5432\//);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(`${root}Dockerfile`, 'utf8');
  it('is multi-stage, installs from the lockfile, compiles, and runs dist/main.js as a non-root user', () => {
    expect(dockerfile.match(/^FROM node:20/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toContain('pnpm install --frozen-lockfile');
    expect(dockerfile).toContain('tsc -b packages/http-fastify');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('packages/http-fastify/dist/main.js');
  });

  it('installs and ships every workspace package the server needs at run time', () => {
    const needed = new Set<string>();
    const visit = (dir: string): void => {
      if (needed.has(dir)) return;
      needed.add(dir);
      const manifest = JSON.parse(readFileSync(`${root}packages/${dir}/package.json`, 'utf8')) as { dependencies?: Record<string, string> };
      for (const name of Object.keys(manifest.dependencies ?? {})) if (name.startsWith('@calsync/')) visit(name.slice('@calsync/'.length));
    };
    visit('http-fastify');
    for (const dir of needed) {
      expect(dockerfile.match(new RegExp(`^COPY packages/${dir}/package\\.json packages/${dir}/$`, 'gm'))?.length, `${dir}/package.json in both stages`).toBe(2);
      expect(dockerfile, `${dir}/dist in the runtime stage`).toContain(`COPY --from=build /app/packages/${dir}/dist packages/${dir}/dist`);
    }
  });
});
