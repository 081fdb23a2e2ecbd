export * from './service-account.js';
export * from './fcm-client.js';
export * from './fcm-change-notifier.js';
export * from './fcm-alert-notifier.js';
