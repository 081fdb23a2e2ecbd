import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A bench module run as a process of its own (`forkModule`), asked over IPC one message at a time. */
export interface Forked<ToChild, FromChild> {
  /** Sends `message` and answers the child's next message; rejects if the child exits first. */
  ask(message: ToChild): Promise<FromChild>;
}

/** Runs the module at `moduleUrl` (its `import.meta.url`) as a child process with tsx, as the bench itself runs; `name` names it in errors. */
export function forkModule<ToChild, FromChild>(moduleUrl: string, name: string): Forked<ToChild, FromChild> {
  const child = fork(fileURLToPath(moduleUrl), [], { execArgv: ['--import', 'tsx', '--conditions=source'], stdio: 'inherit' });
  return {
    ask: (message) =>
      new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`${name} exited (${code})`));
        child.once('exit', onExit);
        child.once('message', (m) => {
          child.off('exit', onExit);
          resolve(m as FromChild);
        });
        child.send(message as object);
      }),
  };
}

/** Whether this process is the child `forkModule` started for the module at `moduleUrl`. */
export function isForkedModule(moduleUrl: string): boolean {
  return process.send !== undefined && process.argv[1] === fileURLToPath(moduleUrl);
}
