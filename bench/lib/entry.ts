/** How every bench runs: a hard stop so a stuck run ends by itself, exit code from `main`. */
export function runBench(main: () => Promise<void>, limitMs: number, log: (line: string) => void): void {
  const hardStop = setTimeout(() => {
    log(`run exceeded ${String(limitMs / 60_000)} minutes; aborting`);
    process.exit(2);
  }, limitMs);
  hardStop.unref();
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
