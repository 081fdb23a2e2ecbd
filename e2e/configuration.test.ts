import { describe, expect, it } from 'vitest';
import { runMainToExit as runMain } from './lib/server-process.js';

// What an operator sees at the terminal when the configuration is wrong: every problem in one run,
// one line each, no stack trace, exit status 1.
describe('configuration errors of the real process', () => {
  it('a production start without any secret lists every missing variable at once', async () => {
    const { code, stderr } = await runMain({ NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'pglite://memory' });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    const names = ['JWT_SECRET', 'JWT_REFRESH_SECRET', 'SYNC_CURSOR_SECRET', 'SMS_GATEWAY_URL', 'SMS_GATEWAY_API_KEY', 'SMS_GATEWAY_SENDER'];
    expect(lines).toHaveLength(names.length);
    for (const name of names) expect(lines).toContain(`Invalid configuration: ${name} is required when NODE_ENV=production`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('`migrate` with a DATABASE_URL of another scheme prints one line, no stack trace', async () => {
    const { code, stdout, stderr } = await runMain({ DATABASE_URL: 'mysql://db.example/calsync' }, ['migrate']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual(['Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql:// or pglite://']);
  });

  it('`migrate` migrates an embedded database and says so', async () => {
    const { code, stdout, stderr } = await runMain({ DATABASE_URL: 'pglite://memory' }, ['migrate']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^migrate: applied \S+/);
  });
});
