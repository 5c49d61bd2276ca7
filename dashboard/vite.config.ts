// Builds the dashboard into public/app/, which the Worker serves as static assets (same origin as the
// API, nothing from a CDN). `npm ci` builds it (postinstall), and so does `npm run build`.
import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/app/",
  plugins: [preact()],
  build: {
    outDir: "../public/app",
    emptyOutDir: true,
    // One bundle for the app and one per heavy library: a reload fetches only what changed.
    chunkSizeWarningLimit: 400,
  },
});
