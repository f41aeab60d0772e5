/**
 * Prints the inbox DDL: `node -r ts-node/register -r tsconfig-paths/register
 * libs/inbox/src/cli/inbox-sql.cli.ts [schema] [inbox] [rejected] [versions]`.
 */
import { inboxSchemaSql } from '../schema/inbox-schema.sql';

const [schema, inbox, rejected, versions] = process.argv.slice(2);
for (const sql of inboxSchemaSql({ schema, inbox, rejected, versions })) {
  console.log(`${sql};\n`);
}
