/**
 * `npm start`: the whole system in one command (see system.ts for what runs). Exit codes: 0
 * after a stop on SIGTERM or SIGINT, 1 when a setting is invalid, redis-server is missing, a
 * piece fails to start, or the console or the runner exits without being asked to, 2 on an
 * unknown command-line argument.
 */
import path from 'node:path';
import { ConfigError } from '../config/config-error';
import { killAllChildren } from './child-process';
import { RedisNotInstalledError } from './embedded-redis';
import { createLauncherLog, type LauncherLog } from './log';
import {
  LauncherUsageError,
  loadLauncherSettings,
  parseLauncherFlags,
  type LauncherSettings,
} from './settings';
import { stopRequestCounter } from '../runner/stop-signals';
import { System } from './system';

const root = path.resolve(__dirname, '..');

function readSettings(log: LauncherLog): LauncherSettings {
  try {
    return loadLauncherSettings(parseLauncherFlags(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof LauncherUsageError) {
      log.error(error.message);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      log.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const settings = readSettings(createLauncherLog());
  const log = createLauncherLog(settings.logLevel === 'silent');
  const system = new System(root, settings, log);
  let exitCode = 0;

  // Whatever happens to the launcher, no child may outlive it.
  process.on('exit', killAllChildren);
  process.on('uncaughtException', (error) => {
    log.error(`launcher crashed: ${error.stack ?? error.message}`);
    killAllChildren();
    process.exit(1);
  });
  // npm forwards the terminal's Ctrl-C to the launcher, which got it from the terminal too: the
  // copy is not the second Ctrl-C that returns running jobs (runner/stop-signals.ts).
  const countRequest = stopRequestCounter();
  const onSignal = (signal: NodeJS.Signals) => {
    if (countRequest() === undefined) return;
    if (!system.isStopping) log.info(`${signal}: stopping (again to return running jobs now)`);
    void system.stop().then(() => process.exit(exitCode));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  let running;
  try {
    running = await system.start();
  } catch (error) {
    if (system.isStopping) return; // a signal came during the start; onSignal exits
    exitCode = 1;
    if (error instanceof RedisNotInstalledError || error instanceof ConfigError) {
      log.error(error.message);
    } else {
      log.error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    await system.stop();
    process.exit(exitCode);
  }

  const label = await running.childExited;
  if (system.isStopping) return;
  exitCode = 1;
  log.error(`the ${label} exited unexpectedly: stopping everything`);
  await system.stop();
  process.exit(exitCode);
}

void main();
