import path from "node:path";

/** Where `npm start` keeps the demo platform key of a test-mode deployment (git-ignored, 0600). */
export const DEMO_KEY_FILE = path.resolve(process.env.DEMO_KEY_FILE ?? ".data/demo-platform-key.json");
