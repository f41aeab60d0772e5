/** Sends take turns: `run()` starts its work once every earlier caller's work is over. @internal */
export class SendGate {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(work: () => Promise<T>): Promise<T> {
    let open!: () => void;
    const turn = new Promise<void>((resolve) => (open = resolve));
    const before = this.tail;
    this.tail = before.then(() => turn);
    await before;
    try {
      return await work();
    } finally {
      open();
    }
  }
}
