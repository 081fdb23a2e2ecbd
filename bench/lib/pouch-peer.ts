import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, processCpuSeconds } from './server.js';

/**
 * The peer: PouchDB's CouchDB-protocol server (express-pouchdb on LevelDB through pouchdb-node),
 * installed from the npm registry by npm into a scratch folder outside the workspace (kept there
 * between runs), never a dependency of the project.
 */
const PEER_DIR = join(tmpdir(), 'calsync-bench-peer');
const PEER_PACKAGES = { express: '4.21.2', 'express-pouchdb': '4.2.0', 'pouchdb-node': '9.0.0' };

/** The server the bench starts: one Express app with express-pouchdb over LevelDB databases in the folder it is given. */
const SERVER_SCRIPT = `const express = require('express');
const PouchDB = require('pouchdb-node');
const [dir, port] = [process.argv[2], Number(process.argv[3])];
const app = express();
app.use(require('express-pouchdb')(PouchDB.defaults({ prefix: dir + '/' }), { mode: 'minimumForPouchDB', inMemoryConfig: true }));
app.listen(port, '127.0.0.1', () => console.log('ready'));
`;

/** Installs the peer's packages into the scratch folder unless they are there already. */
async function installPeer(): Promise<void> {
  const manifest = JSON.stringify({ name: 'calsync-bench-peer', private: true, dependencies: PEER_PACKAGES }, null, 2);
  mkdirSync(PEER_DIR, { recursive: true });
  writeFileSync(join(PEER_DIR, 'server.cjs'), SERVER_SCRIPT);
  if (existsSync(join(PEER_DIR, 'node_modules', 'express-pouchdb', 'package.json')) && existsSync(join(PEER_DIR, 'package.json'))) return;
  writeFileSync(join(PEER_DIR, 'package.json'), manifest);
  console.log(`bench: installing the PouchDB peer (${Object.entries(PEER_PACKAGES).map(([n, v]) => `${n}@${v}`).join(', ')}) into ${PEER_DIR}`);
  await new Promise<void>((resolve, reject) =>
    execFile('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PEER_DIR, timeout: 600_000 }, (error, _out, stderr) =>
      error ? reject(new Error(`could not install the PouchDB peer: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

/** A running PouchDB server on a fresh data folder. */
export class PouchPeer {
  private child: ChildProcess | null = null;
  private dataDir = '';
  baseUrl = '';

  async start(): Promise<void> {
    await installPeer();
    this.dataDir = mkdtempSync(join(tmpdir(), 'calsync-bench-pouch-data-'));
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [join(PEER_DIR, 'server.cjs'), this.dataDir, String(port)], { cwd: PEER_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the PouchDB peer did not start:\n${output}`)), 60_000);
      child.stdout!.on('data', (c: Buffer) => {
        output += c.toString();
        if (output.includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the PouchDB peer exited (${code}):\n${output}`));
      });
    });
  }

  /** CPU seconds (user + system) the peer's server process has used so far. */
  cpuSeconds(): number {
    return processCpuSeconds(this.child!.pid!);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
