import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compressedCopiesPlugin } from './compress-plugin.js';
import { serviceWorkerPlugin } from './service-worker-plugin.js';

// The app lives under /app/ on the calsync server. VITE_API_URL (read by src/client.ts) points the
// SDK at another origin; by default it talks to the origin that served the page.
export default defineConfig({
  base: '/app/',
  plugins: [react(), serviceWorkerPlugin(), compressedCopiesPlugin()],
  resolve: { conditions: ['source'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      onwarn(warning, warn) {
        // The shared rrule check reads `RRule` from the module or, under Node's CommonJS interop,
        // from its default export; in a browser bundle the first one is there. Not a problem.
        if (warning.code === 'IMPORT_IS_UNDEFINED' && /records[\\/]rrule\.ts/.test(warning.id ?? warning.message)) return;
        warn(warning);
      },
    },
  },
});
