import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import * as barrel from './index';

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

/** Every name the barrel exports (types included) and the module it comes from. */
function exports(): { name: string; module: string }[] {
  const found: { name: string; module: string }[] = [];
  for (const statement of parse(join(__dirname, 'index.ts')).statements) {
    if (!ts.isExportDeclaration(statement) || !statement.exportClause) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    const module = (statement.moduleSpecifier as ts.StringLiteral).text;
    for (const element of statement.exportClause.elements)
      found.push({ name: element.name.text, module: join(__dirname, `${module}.ts`) });
  }
  return found;
}

const exportedNames = () =>
  exports()
    .map((e) => e.name)
    .sort();

/** The JSDoc tags of the declaration of `name` in `file`. */
function tagsOf(file: string, name: string): string[] {
  for (const statement of parse(file).statements) {
    const named = statement as ts.Statement & { name?: ts.Identifier };
    const declared = ts.isVariableStatement(statement)
      ? statement.declarationList.declarations.some(
          (d) => ts.isIdentifier(d.name) && d.name.text === name,
        )
      : named.name?.text === name;
    if (declared) return ts.getJSDocTags(statement).map((tag) => tag.tagName.text);
  }
  throw new Error(`${name} is not declared in ${file}`);
}

describe('the public API of @nest-outbox/inbox', () => {
  it('exports exactly these names (a change here is an API change: say so in the migration notes)', () => {
    expect(exportedNames()).toMatchInlineSnapshot(`
     [
       "ConsumerRecovery",
       "ConsumerSnapshot",
       "ExhaustedPolicy",
       "INBOX_METRICS_REGISTRY",
       "InboxConsumerRegistry",
       "InboxEvent",
       "InboxHandler",
       "InboxHandlerOptions",
       "InboxHealthIndicator",
       "InboxKafkaServer",
       "InboxKafkaServerOptions",
       "InboxMetricsOptions",
       "InboxMigrationOptions",
       "InboxMisuseError",
       "InboxModule",
       "InboxModuleExtras",
       "InboxModuleOptions",
       "InboxOptionsFactory",
       "InboxOutcome",
       "InboxPermanentError",
       "InboxRetentionOptions",
       "InboxRetentionTooShortError",
       "InboxRetryOptions",
       "InboxSchemaMissingError",
       "InboxTableNames",
       "InboxVersionGapError",
       "PoisonPause",
       "RejectionCode",
       "RowCountResult",
       "UnexpectedRowCountError",
       "VersionCheckMode",
       "createInboxMigration",
       "dropInboxSchemaSql",
       "expectRowCount",
       "idempotencyKey",
       "inboxSchemaSql",
     ]
    `);
  });

  it('exports only symbols documented as public API, none marked @internal', () => {
    const notPublic = exports()
      .map(({ name, module }) => ({ name, tags: tagsOf(module, name) }))
      .filter(({ tags }) => tags.includes('internal') || !tags.includes('publicApi'))
      .map(({ name }) => name);
    expect(notPublic).toEqual([]);
  });

  it('exports these values at run time, and no token of its options nor an internal class', () => {
    expect(Object.keys(barrel).sort()).toMatchInlineSnapshot(`
     [
       "INBOX_METRICS_REGISTRY",
       "InboxConsumerRegistry",
       "InboxEvent",
       "InboxHandler",
       "InboxHealthIndicator",
       "InboxKafkaServer",
       "InboxMisuseError",
       "InboxModule",
       "InboxPermanentError",
       "InboxRetentionTooShortError",
       "InboxSchemaMissingError",
       "InboxVersionGapError",
       "UnexpectedRowCountError",
       "createInboxMigration",
       "dropInboxSchemaSql",
       "expectRowCount",
       "idempotencyKey",
       "inboxSchemaSql",
     ]
    `);
  });
});
