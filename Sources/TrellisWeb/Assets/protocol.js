// The control protocol's JSON lines over the desk's WebSocket (docs/web.md): requests
// carry an id, replies echo it, events echo the id of the watch request; a message from
// the session may hold several lines.

export class Session {
  constructor() {
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.watchId = null;
  }

  connect() {
    return new Promise((resolve, reject) => {
      const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
      this.socket = new WebSocket(url);
      this.socket.onopen = () => resolve();
      this.socket.onerror = () => reject(new Error("the session refused the connection"));
      this.socket.onclose = () => this.emit("closed", {});
      // A message holds one or more JSON lines.
      this.socket.onmessage = (message) => {
        for (const line of message.data.split("\n")) if (line) this.receive(JSON.parse(line));
      };
    });
  }

  receive(message) {
    if (message.event !== undefined) {
      this.emit(message.event, message.data);
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
  }

  // Sends one command line; resolves with its result, rejects with the dispatcher's error.
  request(command, id = this.nextId++) {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, command }));
    });
  }

  watch(words) {
    this.watchId = `watch-${this.nextId++}`;
    return this.request(`watch ${words}`, this.watchId);
  }

  on(kind, handler) {
    if (!this.handlers.has(kind)) this.handlers.set(kind, []);
    this.handlers.get(kind).push(handler);
  }

  emit(kind, data) {
    for (const handler of this.handlers.get(kind) ?? []) handler(data);
    for (const handler of this.handlers.get("*") ?? []) handler(kind, data);
  }
}

// Words of a command line: quoted when they hold blanks or quotes, as the protocol reads them.
export function quote(word) {
  const text = String(word);
  return /^[^\s"\\;]+$/.test(text) ? text : `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
