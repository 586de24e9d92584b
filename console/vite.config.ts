import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web console: built by `npm install` (prepare) into console/dist, which `cumulo serve` serves at /.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
