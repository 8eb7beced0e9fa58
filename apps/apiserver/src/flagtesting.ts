/** For the flag tests: the FlagError message parseFlags throws for argv (failing the test if it does not throw). */
import { FlagError, parseFlags } from './flags.js';

export function flagError(argv: string[]): string {
  try {
    parseFlags(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(FlagError);
    return (err as Error).message;
  }
  throw new Error(`parseFlags(${JSON.stringify(argv)}) did not throw`);
}
