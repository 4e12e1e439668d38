// Tailwind CSS v4 through its PostCSS plugin (DECISIONS.md B14); Next's Turbopack and webpack both read this file.
const config = { plugins: { "@tailwindcss/postcss": {} } };

export default config;
