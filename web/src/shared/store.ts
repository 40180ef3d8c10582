// Where the page keeps what survives a reload (publishing.md "Pages" rule
// 3): the visitor secret, the thread and the running turn, in localStorage,
// sessionStorage or memory as the publication's `persistence` says. Never a
// cookie.

export type Persistence = "local" | "session" | "none";

/** A small key-value place for one chat. */
export class PageStore {
  private memory = new Map<string, string>();
  private readonly backing: Storage | null;

  constructor(
    private readonly prefix: string,
    persistence: Persistence,
  ) {
    let backing: Storage | null = null;
    try {
      if (persistence === "local") backing = window.localStorage;
      if (persistence === "session") backing = window.sessionStorage;
    } catch {
      backing = null; // storage refused (a sandboxed frame): memory only
    }
    this.backing = backing;
  }

  get(key: string): string | null {
    const name = `${this.prefix}:${key}`;
    try {
      return this.backing ? this.backing.getItem(name) : (this.memory.get(name) ?? null);
    } catch {
      return this.memory.get(name) ?? null;
    }
  }

  set(key: string, value: string | null): void {
    const name = `${this.prefix}:${key}`;
    try {
      if (this.backing) {
        if (value === null) this.backing.removeItem(name);
        else this.backing.setItem(name, value);
        return;
      }
    } catch {
      // fall through to memory
    }
    if (value === null) this.memory.delete(name);
    else this.memory.set(name, value);
  }
}
