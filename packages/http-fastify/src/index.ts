// Public surface of the HTTP package: the app factory, the plugin for a host app, and configuration.
export { buildApp, calsync, type BuildAppDeps, type CalsyncPluginOptions } from './app.js';
export { CONFIG_TABLE, CONFIG_VARS, ConfigError, loadConfig, parseDurationSeconds, type ConfigVar, type LoadedConfig } from './config.js';
export type { AppConfig } from './config-types.js';
export type { AuthContext } from './auth-context.js';
export { errorEnvelope, ok, type ErrorEnvelope, type SuccessEnvelope } from './envelope.js';
export { HTTP_STATUS_BY_CODE } from './http-status.js';
