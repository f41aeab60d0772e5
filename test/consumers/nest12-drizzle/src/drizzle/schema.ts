// The app's Drizzle schema, which drizzle-kit snapshots: the app queries its tables with raw
// SQL, and the nest-outbox tables come from the custom migration (`npm run db:migrate`).
export {};
