import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** A program some tests need and a user's machine may lack (Chromium, promtool). */
export interface Tool {
  /** What the skip line names: the path looked at, or the command. */
  readonly name: string;
  /** Where it was found; undefined when it is not installed. */
  readonly path: string | undefined;
  /** How to get it, for the skip line. */
  readonly install: string;
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Finds `command` (an absolute path, or a name looked up on PATH) without running anything.
 * Tests never install a missing tool: .ci/run installs the system packages.
 */
export function findTool(command: string, install: string): Tool {
  const path = isAbsolute(command)
    ? executable(command)
      ? command
      : undefined
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command))
        .find(executable);
  return { name: command, path, install };
}

/**
 * `describe(title, body)` when `tool` is installed. Without it the block's tests are not
 * registered: one warning and one todo entry, both titled `needs <tool>: not installed`, say
 * which tool is missing and how to get it, so the run shows what it did not check.
 */
export function describeWithTool(tool: Tool, title: string, body: (path: string) => void): void {
  const { path } = tool;
  if (path !== undefined) {
    describe(title, () => body(path));
    return;
  }
  const line = `needs ${tool.name}: not installed (${tool.install})`;
  console.warn(`${title}: ${line}; these tests did not run`);
  describe(title, () => it.todo(line));
}
