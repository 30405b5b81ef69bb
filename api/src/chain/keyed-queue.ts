/**
 * Runs tasks with the same key one after another, in the order they came, within this process
 * (tasks with different keys run side by side). Other processes are ordered by the database.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(task);
    this.tails.set(key, next);
    const forget = () => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    };
    next.then(forget, forget);
    return next;
  }
}
