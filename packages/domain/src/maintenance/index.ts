export * from './retention-job.js';
