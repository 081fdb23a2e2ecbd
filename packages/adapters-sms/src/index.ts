export * from './http-sms-sender.js';
export * from './logging-sms-sender.js';
