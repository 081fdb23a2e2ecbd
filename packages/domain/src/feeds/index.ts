export * from './feed-service.js';
