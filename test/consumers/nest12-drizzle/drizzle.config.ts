import { defineConfig } from 'drizzle-kit';

// drizzle-kit's config (docs/STACKS.md, "Tables, on any stack"): the run's schema holds the
// migrations journal too, so each run applies its own custom migration and drops it with the schema.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/drizzle/schema.ts',
  out: './drizzle',
  dbCredentials: { url: process.env.DATABASE_URL! },
  migrations: { schema: process.env.CONSUMER_SCHEMA },
});
