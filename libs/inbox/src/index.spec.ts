import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { barrelExports } from '@test/support';
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

describe('@nest-outbox/inbox public barrel', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/inbox/src/index.ts')).toMatchInlineSnapshot(`
     [
       "type ConsumerRecovery",
       "interface ConsumerSnapshot",
       "function createInboxMigration",
       "function dropInboxSchemaSql",
       "type ExhaustedPolicy",
       "function expectRowCount",
       "function idempotencyKey",
       "const INBOX_METRICS_REGISTRY",
       "function InboxBatchHandler",
       "class InboxConsumerRegistry",
       "const InboxEvent",
       "const InboxEvents",
       "function InboxHandler",
       "interface InboxHandlerOptions",
       "class InboxHandlerSkippedError",
       "class InboxKafkaServer",
       "type InboxKafkaServerOptions",
       "interface InboxMetricsOptions",
       "interface InboxMigrationOptions",
       "class InboxMisuseError",
       "class InboxModule",
       "interface InboxModuleExtras",
       "interface InboxModuleOptions",
       "interface InboxOptionsFactory",
       "type InboxOutcome",
       "class InboxPermanentError",
       "interface InboxRetentionOptions",
       "class InboxRetentionTooShortError",
       "interface InboxRetryOptions",
       "class InboxRmqServer",
       "type InboxRmqServerOptions",
       "class InboxSchemaMissingError",
       "function inboxSchemaSql",
       "interface InboxTableNames",
       "interface InboxTuningOptions",
       "class InboxVersionGapError",
       "function partitionedInboxSchemaSql",
       "class PlatformaticInboxServer",
       "type PlatformaticInboxServerOptions",
       "interface PoisonPause",
       "type RejectionCode",
       "type RowCountResult",
       "interface UndecodableRecord",
       "class UnexpectedRowCountError",
       "type VersionCheckMode",
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

  it('exports no token of its options, no lifecycle class and no test seam at run time', () => {
    expect(Object.keys(barrel).filter((name) => /OPTIONS|Lifecycle|FAULT/.test(name))).toEqual([]);
  });
});
