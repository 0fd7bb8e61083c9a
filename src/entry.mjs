// The module the runtime loads: the Worker's handlers and the Showtime
// Durable Object class, each passing straight into the Rust build
// (build/index.js, wasm-bindgen's glue, made by scripts/build-worker.sh).
//
// What this adds is recovery after a panic. A Rust panic aborts the Wasm
// instance, and every later call into it would fail until the runtime
// replaced the isolate. So a panic (Rust's panic hook sets `criticalError`)
// or a Wasm trap seen here marks the instance broken, and the next request
// starts a fresh one; an object built on the old instance is built again.
// This is the recovery worker-build's generated entry makes, without the
// `Proxy` it wraps around every request and every method call, and without
// worker-build itself (BENCHMARKS.md, "A plain entry", has what it changed).
import { DurableObject } from "cloudflare:workers";
import * as rust from "../build/index.js";

Error.stackTraceLimit = 100;

// Shared with the Rust side, which sets `criticalError` in its panic hook
// and counts each new instance in `instanceId` as it starts.
const initState = rust.__worker_init_state();

function renewIfBroken() {
  if (initState.criticalError) {
    console.log("Reinitializing Wasm application");
    rust.__wbg_reset_state();
    initState.criticalError = false;
  }
}

function noteTrap(error) {
  if (error instanceof WebAssembly.RuntimeError) {
    console.error("Critical", error);
    initState.criticalError = true;
  }
}

addEventListener("error", (event) => noteTrap(event.error));

function rethrowNoted(error) {
  noteTrap(error);
  throw error;
}

// Runs one call into Wasm, noting a trap whether it is thrown at once or
// rejects the promise the call returned.
function guarded(call) {
  renewIfBroken();
  let result;
  try {
    result = call();
  } catch (error) {
    rethrowNoted(error);
  }
  return result instanceof Promise ? result.then(undefined, rethrowNoted) : result;
}

export default {
  fetch(request, env, ctx) {
    return guarded(() => rust.fetch(request, env, ctx));
  },
  scheduled(event, env, ctx) {
    return guarded(() => rust.scheduled(event, env, ctx));
  },
};

// A subclass of the runtime's `DurableObject`, as RPC to an object needs,
// whose work is done by a Rust object of the same
// name, made anew on the Wasm instance that is running now.
class RustObject extends DurableObject {
  constructor(state, env, make) {
    super(state, env);
    this.state = state;
    this.env = env;
    this.make = make;
    this.instanceId = -1;
    renewIfBroken();
    this.live();
  }

  // The Rust object, on the Wasm instance that is running now. Every call
  // comes through `guarded`, which has renewed a broken instance already.
  live() {
    if (this.instanceId !== initState.instanceId) {
      try {
        this.object = this.make(this.state, this.env);
      } catch (error) {
        initState.criticalError = true;
        throw error;
      }
      this.instanceId = initState.instanceId;
    }
    return this.object;
  }
}

// A showing's waiting room (src/waiting_room.rs): the Worker calls `join`
// on its stub.
export class WaitingRoom extends RustObject {
  constructor(state, env) {
    super(state, env, (s, e) => new rust.WaitingRoom(s, e));
  }

  join(request) {
    return guarded(() => this.live().join(request));
  }
}

// A limited discount code's uses (src/code_uses.rs): the Worker and the
// showings' objects call `uses` on its stub.
export class CodeUses extends RustObject {
  constructor(state, env) {
    super(state, env, (s, e) => new rust.CodeUses(s, e));
  }

  uses(request) {
    return guarded(() => this.live().uses(request));
  }
}

// A showing's seats (src/showtime/): the Worker calls `desk` on its stub.
export class Showtime extends RustObject {
  constructor(state, env) {
    super(state, env, (s, e) => new rust.Showtime(s, e));
  }

  // Every request of the showing's protocol, as its JSON text; answers
  // the reply's (src/showtime/client.rs makes the call).
  desk(request) {
    return guarded(() => this.live().desk(request));
  }

  fetch(request) {
    return guarded(() => this.live().fetch(request));
  }

  alarm() {
    return guarded(() => this.live().alarm());
  }

  webSocketMessage(ws, message) {
    return guarded(() => this.live().webSocketMessage(ws, message));
  }

  webSocketClose(ws, code, reason, wasClean) {
    return guarded(() => this.live().webSocketClose(ws, code, reason, wasClean));
  }

  webSocketError(ws, error) {
    return guarded(() => this.live().webSocketError(ws, error));
  }
}
