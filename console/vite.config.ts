import path from 'node:path';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Plugin } from 'vite';

/**
 * first-reads.ts, built on its own and put inline at the top of index.html: the first page's reads
 * start as the HTML is read, not once the console's script has downloaded and compiled. The server
 * allows this script by its hash (src/http/console.ts).
 */
const MARK = '<!-- first-reads.ts -->';

function inlineFirstReads(): Plugin {
  return {
    name: 'cumulo-inline-first-reads',
    async transformIndexHtml(html) {
      const result = await build({
        configFile: false,
        root: import.meta.dirname,
        publicDir: false,
        logLevel: 'warn',
        build: {
          write: false,
          minify: true,
          lib: { entry: path.join(import.meta.dirname, 'src', 'first-reads.ts'), formats: ['iife'], name: 'cumuloFirstReads' },
        },
      });
      const outputs = Array.isArray(result) ? result : [result];
      const chunk = outputs.flatMap((o) => ('output' in o ? o.output : [])).find((file) => file.type === 'chunk');
      if (chunk?.type !== 'chunk') throw new Error('first-reads.ts built to nothing');
      // Before the stylesheet: a classic script waits for the stylesheets above it.
      if (!html.includes(MARK)) throw new Error(`index.html has no ${MARK}`);
      return html.replace(MARK, `<script>${chunk.code.trim()}</script>`);
    },
  };
}

// The web console: built by `npm install` (prepare) into console/dist, which `cumulo serve` serves at /.
// Written against React's API, it runs on Preact's: a tenth of the script for the browser to compile first.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), inlineFirstReads()],
  resolve: {
    alias: [
      { find: /^react$/, replacement: 'preact/compat' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
    ],
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
