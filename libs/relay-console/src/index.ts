export { RelayConsoleModule } from './relay-console.module';
export { ConsoleAccessError } from './console-access.error';
export {
  parseConsoleTokens,
  type ConsolePressure,
  type RelayConsoleAuth,
  type RelayConsoleOptions,
} from './relay-console.options';
