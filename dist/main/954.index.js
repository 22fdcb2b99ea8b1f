export const id = 954;
export const ids = [954];
export const modules = {

/***/ 76170:
/***/ ((module) => {

module.exports = eval("require")("../build/Release/cpufeatures.node");


/***/ }),

/***/ 37710:
/***/ ((module) => {

module.exports = eval("require")("./crypto/build/Release/sshcrypto.node");


/***/ }),

/***/ 83538:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  SshTransport: () => (/* binding */ SshTransport)
});

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/render/shell.js
var shell = __webpack_require__(52906);
// EXTERNAL MODULE: ./lib/exec/transport/transport.js
var transport = __webpack_require__(31286);
;// CONCATENATED MODULE: ./lib/exec/transport/waiting.js
function abortable(p, signal) {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
function sleep(ms, signal) {
  return abortable(
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    }),
    signal
  );
}
class Slots {
  constructor(free) {
    this.free = free;
  }
  free;
  waiting = [];
  /** Resolves with the function that gives the slot back (safe to call more than once). */
  async take(signal) {
    if (this.free > 0) this.free--;
    else {
      let grant;
      const granted = new Promise((resolve) => grant = resolve);
      this.waiting.push(grant);
      try {
        await abortable(granted, signal);
      } catch (e) {
        const i = this.waiting.indexOf(grant);
        if (i === -1) this.give();
        else this.waiting.splice(i, 1);
        throw e;
      }
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.give();
    };
  }
  give() {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}


// EXTERNAL MODULE: ./lib/exec/transport/words.js
var transport_words = __webpack_require__(73466);
;// CONCATENATED MODULE: ./lib/exec/transport/ssh/channels.js






const FORCED_COMMAND_REFUSAL = /^Command rejected by (\S+): /;
const OTHER_REFUSAL = /^[^\n]{0,160}\bcommands?\b[^\n]*\bnot (?:allowed|permitted)\b[^\n]*\n?$/i;
function forcedCommand(name, wrapper) {
  return new errors/* UserError */.yo({
    message: `${name} runs a forced command (${wrapper}) that allows only a short list of commands, not the shell campaign needs there: it is an automation node`,
    fix: 'set cluster.restricted: true (or restricted: slurm for a key without file transfer) to drive it with plain commands (docs/SLURM.md, "Automation nodes")'
  });
}
function notOnList(name, wrapper, command) {
  return new errors/* UserError */.yo({
    message: `the forced command of ${name} (${wrapper}) refused \`${(0,transport/* firstWord */.Nk)(command)}\`, which campaign needs there: the key it logs in with is bound to a list without it`,
    fix: `ask the centre for a key bound to a list that has \`${(0,transport/* firstWord */.Nk)(command)}\` (allowed_commands.sh has them all)`
  });
}
const DEFAULT_MAX_CHANNELS = 8;
const SERVER_KILL_GRACE_MS = 1e3;
const OPEN_CONNECT_FAILED = 2;
const SESSION_RETRIES_MS = [20, 50, 100, 200, 400, 800, 1600, 3200];
class CommandChannels {
  constructor(connector, opts) {
    this.connector = connector;
    this.opts = opts;
    this.slots = new Slots(opts.maxChannels ?? DEFAULT_MAX_CHANNELS);
  }
  connector;
  opts;
  slots;
  sent = 0;
  get commandsSent() {
    return this.sent;
  }
  exec(command, opts = {}) {
    return this.send(
      {
        command,
        // bash whatever the login shell is. `timeout` kills the command's whole process group on
        // the server a little after the deadline even when sshd refuses the KILL signal request
        // (it does for root logins) or the network is gone.
        text: (msLeft) => `exec timeout -s KILL ${((msLeft + SERVER_KILL_GRACE_MS) / 1e3).toFixed(1)} bash -c ${(0,shell/* shellQuote */.ZL)(command)}`,
        fate: "it was killed",
        refused: (wrapper) => forcedCommand(this.connector.name, wrapper)
      },
      opts
    );
  }
  /**
   * The words go as the exec request's text exactly as they are: an automation node's wrapper
   * runs them as words, and a login shell elsewhere splits them the same way, save that a `|`
   * inside a word is a pipe to it (run is for automation nodes).
   */
  async run(words, opts = {}) {
    const command = (0,transport_words/* plainCommand */.O)(words);
    return this.send(
      {
        command,
        text: () => command,
        // There is no server-side `timeout` to rely on here: the node allows none, and sshd
        // sends no signal to a forced command's session. The client closes the channel; a
        // command still running there goes on until it ends by itself.
        fate: "its channel was closed, and it may still be running there",
        refused: (wrapper) => notOnList(this.connector.name, wrapper, command)
      },
      opts
    );
  }
  /**
   * On a channel of its own, with a pseudo-terminal of this terminal's size where `terminal`
   * (this terminal in raw mode meanwhile, so that Ctrl-C and the like go to the remote program),
   * this process's input sent to it and its output written here. A dropped connection rejects.
   */
  async attach(command, opts) {
    this.sent++;
    const opening = new AbortController();
    const release = await this.slots.take(opening.signal);
    let conn;
    try {
      conn = await this.connector.connection(opening.signal);
    } catch (e) {
      release();
      throw e;
    }
    const stdin = process.stdin;
    const raw = opts.terminal && stdin.isTTY;
    const pty = opts.terminal ? {
      pty: {
        term: process.env.TERM ?? "xterm",
        rows: process.stdout.rows ?? 24,
        cols: process.stdout.columns ?? 80
      }
    } : {};
    conn.channels++;
    return new Promise((resolve, reject) => {
      let channel;
      const resize = () => channel?.setWindow(process.stdout.rows ?? 24, process.stdout.columns ?? 80, 0, 0);
      const done = (outcome) => {
        conn.onDrop.delete(onDrop);
        process.stdout.off("resize", resize);
        if (channel) stdin.unpipe(channel);
        stdin.pause();
        if (raw) stdin.setRawMode(false);
        conn.channels--;
        release();
        outcome();
      };
      const onDrop = (why) => done(() => reject(new transport/* LinkError */.R6(`the connection to ${this.connector.name} dropped (${why.message})`)));
      conn.onDrop.add(onDrop);
      conn.client.exec(`exec bash -c ${(0,shell/* shellQuote */.ZL)(command)}`, pty, (err, opened) => {
        if (err) {
          done(
            () => reject(
              new transport/* LinkError */.R6(`could not start a shell on ${this.connector.name}: ${this.connector.redact(err.message)}`)
            )
          );
          return;
        }
        channel = opened;
        let code = 0;
        opened.on("exit", (exitCode, signalName) => {
          code = exitCode ?? 128 + (external_node_os_.constants.signals[signalName] ?? 0);
        });
        opened.on("close", () => done(() => resolve(code)));
        opened.pipe(process.stdout, { end: false });
        opened.stderr.pipe(process.stderr, { end: false });
        if (raw) stdin.setRawMode(true);
        process.stdout.on("resize", resize);
        stdin.pipe(opened);
      });
    });
  }
  /** One command, bounded by its timeout from the wait for a channel to its end. */
  async send(sending, opts) {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? this.opts.commandTimeoutMs ?? transport/* DEFAULT_COMMAND_TIMEOUT_MS */.LP;
    const deadline = Date.now() + timeoutMs;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort((0,transport/* commandTimeout */.bf)(sending.command, timeoutMs, this.connector.name, sending.fate)),
      timeoutMs
    );
    try {
      const release = await this.slots.take(job.signal);
      let conn;
      try {
        conn = await this.connector.connection(job.signal);
      } catch (e) {
        release();
        throw e;
      }
      return await this.onChannel(conn, sending, opts.stdin, deadline, job.signal, release);
    } finally {
      clearTimeout(timer);
    }
  }
  /** Runs one command on its own channel; `release` gives the channel's slot back once it is closed. */
  onChannel(conn, sending, stdin, deadline, signal, release) {
    const word = (0,transport/* firstWord */.Nk)(sending.command);
    return new Promise((resolve, reject) => {
      let settled = false;
      let kill;
      const settle = (outcome) => {
        if (settled) return;
        settled = true;
        conn.onDrop.delete(onDrop);
        signal.removeEventListener("abort", onAbort);
        outcome();
      };
      const onDrop = (why) => {
        release();
        settle(
          () => reject(
            new transport/* LinkError */.R6(
              `the connection to ${this.connector.name} dropped while \`${word}\` was running (${why.message}); it may or may not have completed`
            )
          )
        );
      };
      const onAbort = () => {
        kill?.();
        settle(() => reject(signal.reason));
      };
      const notStarted = (err) => {
        release();
        settle(
          () => reject(
            new transport/* LinkError */.R6(
              `could not start \`${word}\` on ${this.connector.name}: ${this.connector.redact(err.message)}`
            )
          )
        );
      };
      if (!conn.alive) {
        notStarted(new Error("the connection has just dropped"));
        return;
      }
      conn.onDrop.add(onDrop);
      signal.addEventListener("abort", onAbort, { once: true });
      let tries = 0;
      const open = () => {
        conn.channels++;
        try {
          conn.client.exec(sending.text(Math.max(deadline - Date.now(), 0)), started);
        } catch (e) {
          conn.channels--;
          notStarted(e);
        }
      };
      const started = (err, channel) => {
        if (err) {
          conn.channels--;
          const refusedSession = err.reason === OPEN_CONNECT_FAILED;
          if (refusedSession && conn.channels > 0 && tries < SESSION_RETRIES_MS.length && !settled && conn.alive) {
            setTimeout(() => {
              if (!settled) open();
            }, SESSION_RETRIES_MS[tries++]);
            return;
          }
          notStarted(err);
          return;
        }
        kill = () => {
          try {
            channel.signal("KILL");
          } catch {
          }
          channel.close();
        };
        if (settled) {
          kill();
          return;
        }
        const stdout = [];
        const stderr = [];
        let exit;
        channel.on("data", (b) => stdout.push(b));
        channel.stderr.on("data", (b) => stderr.push(b));
        channel.on("exit", (code, signalName) => {
          const bySignal = 128 + (external_node_os_.constants.signals[signalName] ?? 0);
          exit = { code: code ?? bySignal };
        });
        channel.on("close", () => {
          conn.channels--;
          release();
          settle(() => {
            if (!exit) reject(new transport/* LinkError */.R6(`\`${word}\` on ${this.connector.name} ended without an exit status`));
            else {
              const out = Buffer.concat(stdout).toString("utf8");
              const err2 = Buffer.concat(stderr).toString("utf8");
              const refusal = FORCED_COMMAND_REFUSAL.exec(out);
              if (refusal) reject(sending.refused(refusal[1]));
              else if (exit.code !== 0 && out === "" && OTHER_REFUSAL.test(err2))
                reject(sending.refused(`answering "${err2.trim()}"`));
              else resolve({ code: exit.code, stdout: out, stderr: err2 });
            }
          });
        });
        channel.end(stdin ?? "");
      };
      open();
    });
  }
}


// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: ./node_modules/ssh2/lib/index.js
var lib = __webpack_require__(67488);
// EXTERNAL MODULE: ./lib/exec/secrets.js
var exec_secrets = __webpack_require__(47520);
// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
// EXTERNAL MODULE: ./lib/exec/transport/wildcard.js
var wildcard = __webpack_require__(33525);
;// CONCATENATED MODULE: ./lib/exec/transport/known-hosts.js


function knownHostsName(host, port) {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}
function lookupKnownHosts(text, host, port) {
  const name = knownHostsName(host, port);
  const found = { keys: [], revoked: [] };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0].startsWith("@") ? fields.shift() : void 0;
    if (marker !== void 0 && marker !== "@revoked") continue;
    const [hosts, type, b64] = fields;
    if (hosts === void 0 || type === void 0 || b64 === void 0) continue;
    const blob = Buffer.from(b64, "base64");
    if (blobType(blob) !== type || !hostsMatch(hosts, name)) continue;
    if (marker === "@revoked") found.revoked.push(blob);
    else found.keys.push({ type, blob });
  }
  return found;
}
function blobType(blob) {
  if (blob.length < 4) return void 0;
  const len = blob.readUInt32BE(0);
  return len > 0 && len <= 64 && blob.length >= 4 + len ? blob.toString("latin1", 4, 4 + len) : void 0;
}
function hostsMatch(field, name) {
  if (field.startsWith("|1|")) return hashedMatch(field, name);
  let matched = false;
  for (const pattern of field.split(",")) {
    const negated = pattern.startsWith("!");
    if (!globMatch(negated ? pattern.slice(1) : pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}
function hashedMatch(field, name) {
  const [, , salt, hash] = field.split("|");
  if (salt === void 0 || hash === void 0) return false;
  const mac = (0,external_node_crypto_.createHmac)("sha1", Buffer.from(salt, "base64")).update(name).digest("base64");
  return mac === hash;
}
function globMatch(pattern, name) {
  return (0,wildcard/* wildcardMatches */.w)(pattern.toLowerCase(), name);
}


;// CONCATENATED MODULE: ./lib/exec/transport/host-key.js



function fingerprint(blob) {
  return `SHA256:${(0,external_node_crypto_.createHash)("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;
function normalizeFingerprint(text) {
  const t = text.trim();
  if (!FINGERPRINT.test(t)) {
    throw new errors/* UserError */.yo({
      message: `host key fingerprint '${text}' is not a SHA256 fingerprint`,
      fix: "give it as ssh-keygen prints it, e.g. SHA256:Ti4c2g0cvd7Q/RA9fkbG0MBfVlo+ts4yGz1JW7DibIQ"
    });
  }
  return t.replace(/=$/, "");
}
function checkHostKey(blob, host, port, sources) {
  const presented = `${blobType(blob) ?? "unknown-type"} key ${fingerprint(blob)}`;
  const where = `${host}:${port}`;
  const pin = `ssh-keyscan -p ${port} ${host} | ssh-keygen -lf -`;
  for (const source of sources) {
    if (source.kind === "fingerprint") {
      if (fingerprint(blob) === source.fingerprint) continue;
      return new errors/* UserError */.yo({
        message: `host key of ${where} does not match the pinned fingerprint ${source.fingerprint}: the server presented ${presented}`,
        fix: `if the host was reinstalled, check its new key out of band, then pin the line of \`${pin}\` for that key type`
      });
    }
    const { keys, revoked } = lookupKnownHosts(joined(source.files), host, port);
    const name = knownHostsName(host, port);
    const path = source.files.map((f) => f.path).join(" or ");
    if (revoked.some((k) => k.equals(blob))) {
      return new errors/* UserError */.yo({
        message: `host key of ${where} is marked @revoked for ${name} in ${path}: the server presented ${presented}`,
        fix: "do not connect; ask the cluster admins which key the host should have"
      });
    }
    if (keys.some((k) => k.blob.equals(blob))) continue;
    const problem = keys.length === 0 ? `${path} has no entry for ${name}` : `${path} lists other keys for ${name} (${keys.map((k) => fingerprint(k.blob)).join(", ")}), which can mean the host was reinstalled or someone is intercepting the connection`;
    return new errors/* UserError */.yo({
      message: `host key of ${where} is not trusted: the server presented ${presented}; ${problem}`,
      fix: `check the key out of band, then add the output of \`ssh-keyscan -p ${port} ${host}\` to ${source.files[0].path} (or pin one fingerprint from \`${pin}\`)`
    });
  }
  return void 0;
}
const ALGORITHMS = {
  "ssh-ed25519": ["ssh-ed25519"],
  "ecdsa-sha2-nistp256": ["ecdsa-sha2-nistp256"],
  "ecdsa-sha2-nistp384": ["ecdsa-sha2-nistp384"],
  "ecdsa-sha2-nistp521": ["ecdsa-sha2-nistp521"],
  "ssh-rsa": ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]
};
function hostKeyAlgorithms(host, port, sources) {
  const known = sources.flatMap(
    (s) => s.kind === "known_hosts" ? lookupKnownHosts(joined(s.files), host, port).keys : []
  );
  const first = [...new Set(known.flatMap((k) => ALGORITHMS[k.type] ?? []))];
  if (first.length === 0) return void 0;
  const all = Object.values(ALGORITHMS).flat();
  return [...first, ...all.filter((a) => !first.includes(a))];
}
function joined(files) {
  return files.map((f) => f.text).join("\n");
}


// EXTERNAL MODULE: ./lib/exec/transport/target.js
var transport_target = __webpack_require__(17530);
;// CONCATENATED MODULE: ./lib/exec/transport/ssh/auth.js



class Authentication {
  constructor(hop, keys, agent, prompt) {
    this.hop = hop;
    this.prompt = prompt;
    const username = hop.target.user;
    this.queue = [
      ...keys.map((k) => ({
        source: k.source,
        method: {
          type: "publickey",
          username,
          key: k.text,
          ...k.passphrase ? { passphrase: k.passphrase } : {}
        }
      })),
      ...agent ? [{ source: `the ssh-agent at ${agent}`, method: { type: "agent", username, agent } }] : []
    ];
  }
  hop;
  prompt;
  queue;
  tried = [];
  kbd = "not asked";
  gaveUp = false;
  notes = [];
  handler = (methodsLeft, partialSuccess, next) => {
    const left = methodsLeft;
    const stop = () => {
      this.gaveUp = true;
      next(false);
    };
    const secondFactor = partialSuccess === true || left !== null && !left.includes("publickey") && left.includes("keyboard-interactive");
    if (!secondFactor) {
      const attempt = this.queue.shift();
      if (attempt) {
        this.tried.push(attempt.source);
        next(attempt.method);
        return;
      }
    }
    const offered = secondFactor || left?.includes("keyboard-interactive") === true;
    if (!offered || this.kbd !== "not asked") return stop();
    if (!this.prompt) {
      if (secondFactor) this.kbd = "asked, nobody to answer";
      return stop();
    }
    this.kbd = secondFactor ? "answered after the key" : "answered";
    const prompt = this.prompt;
    next({
      type: "keyboard-interactive",
      username: this.hop.target.user,
      prompt: (name, instructions, _lang, prompts, finish) => {
        prompt({ host: this.hop.name, name, instructions, prompts }).then(finish, () => finish([]));
      }
    });
  };
  /** Whether an error during login leaves ssh2 going on to the next method (noted for the message). */
  goesOn(e) {
    if (e.level === "agent" || e.level === "client-authentication" && !this.gaveUp) {
      this.notes.push(e.level === "agent" ? `the ssh-agent failed (${e.message})` : e.message);
      return true;
    }
    return false;
  }
  /** The UserError for a login that was refused. */
  failure(noKeys) {
    const name = this.hop.name;
    const user = this.hop.target.user;
    if (this.kbd === "asked, nobody to answer") {
      return new errors/* UserError */.yo({
        message: `${name} asks for a second factor (keyboard-interactive) after the key, and there is no terminal to ask it on`,
        fix: "run campaign in a terminal to answer it, or where no second factor is asked: an automation node the cluster provides for unattended jobs, or a self-hosted runner on the login node itself (which needs no SSH)"
      });
    }
    if (this.kbd === "answered after the key") {
      return new errors/* UserError */.yo({
        message: `${name} accepted the key but not the answer to its second factor (keyboard-interactive)`,
        fix: "connect again and give the current code (or the answer the prompt asks for)"
      });
    }
    const tried = this.tried.length > 0 ? this.tried.join(", then ") : "no key";
    const extra = [...this.notes, ...this.tried.length === 0 ? noKeys : []];
    const answered = this.kbd === "answered" ? "; the keyboard-interactive answers were not accepted either" : "";
    return new errors/* UserError */.yo({
      message: `${name} did not accept the private key from ${tried}${extra.length ? ` (${extra.join("; ")})` : ""}${answered}`,
      fix: `authorise its public key (ssh-keygen -y -f <key file>) in ~/.ssh/authorized_keys of ${user} there, or give the key that is`
    });
  }
}
function readKeys(opts) {
  const env = opts.env ?? process.env;
  if (opts.keyFile !== void 0 && opts.keyEnv !== void 0) {
    throw new errors/* UserError */.yo({
      message: "give the SSH private key either as a file or as an environment variable, exactly one of them",
      fix: "set the key file path, or the name of the variable (e.g. a CI secret) that holds the key"
    });
  }
  let text;
  let source;
  if (opts.keyEnv !== void 0) {
    source = `environment variable ${opts.keyEnv}`;
    text = env[opts.keyEnv] ?? "";
    if (text.trim() === "") {
      throw new errors/* UserError */.yo({
        message: `${source} (the SSH private key) is not set or empty`,
        fix: `set ${opts.keyEnv}`
      });
    }
  } else if (opts.keyFile !== void 0) {
    source = `file ${opts.keyFile}`;
    try {
      text = (0,external_node_fs_.readFileSync)(opts.keyFile, "utf8");
    } catch (e) {
      throw new errors/* UserError */.yo({
        message: `cannot read the SSH private key ${source}: ${e.code ?? "error"}`,
        fix: "give the path of an existing private key file"
      });
    }
  } else return [];
  const passphrase = opts.passphraseEnv === void 0 ? void 0 : env[opts.passphraseEnv];
  const problem = keyProblem(text, passphrase);
  if (problem === "public") {
    throw new errors/* UserError */.yo({
      message: `${source} holds a public key, not the private key`,
      fix: "give the private key file (the one without .pub)"
    });
  }
  if (problem !== void 0) {
    const looksLikePath = opts.keyEnv !== void 0 && !text.trim().includes("\n") && !text.includes("PRIVATE KEY");
    throw new errors/* UserError */.yo({
      message: `the SSH private key from ${source} cannot be used: ${redactor([text, passphrase ?? ""])(problem)}`,
      fix: looksLikePath ? `${opts.keyEnv} must hold the key's text, not a path: give a path as the key file instead` : `give an OpenSSH or PEM private key${opts.passphraseEnv ? ` (and its passphrase in ${opts.passphraseEnv} if it is encrypted)` : ", and its passphrase variable if it is encrypted"}`
    });
  }
  return [{ text, passphrase, source }];
}
function readIdentityFiles(files, opts) {
  const env = opts.env ?? process.env;
  const passphrase = opts.passphraseEnv === void 0 ? void 0 : env[opts.passphraseEnv];
  const keys = [];
  const skipped = [];
  for (const path of files) {
    let text;
    try {
      text = (0,external_node_fs_.readFileSync)(path, "utf8");
    } catch (e) {
      const code = e.code;
      skipped.push(code === "ENOENT" ? `no key file ${path}` : `key file ${path} unreadable (${code ?? "error"})`);
      continue;
    }
    const problem = keyProblem(text, passphrase);
    if (problem === void 0) keys.push({ text, passphrase, source: `file ${path}` });
    else
      skipped.push(`key file ${path} unusable (${problem === "public" ? "a public key" : "encrypted or not a key"})`);
  }
  return { keys, skipped };
}
function keyProblem(text, passphrase) {
  const parsed = lib.utils.parseKey(text, passphrase);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key instanceof Error) return key.message;
  return key.isPrivateKey() ? void 0 : "public";
}
function redactor(secrets) {
  const parts = [...new Set(secrets.flatMap((s) => [s.trim(), ...s.split(/\r?\n/).map((l) => l.trim())]))].filter((p) => p.length >= 4).sort((a, b) => b.length - a.length);
  return (message) => parts.reduce((m, p) => m.split(p).join("[redacted]"), message);
}


;// CONCATENATED MODULE: ./lib/exec/transport/ssh/connect.js









const DEFAULT_RETRY_DELAYS_MS = [500, 1e3, 2e3, 4e3];
const CLOSE_WAIT_MS = 2e3;
const PROMPT_READY_TIMEOUT_MS = 1e5;
const ADMINISTRATIVELY_PROHIBITED = 1;
class Connector {
  /** Checks the options and reads the keys; throws a UserError for anything the user must fix. */
  constructor(opts) {
    this.opts = opts;
    const all = [...opts.jumps ?? [], opts];
    this.keys = readKeys(opts);
    this.agent = opts.agent !== void 0 && (0,external_node_fs_.existsSync)(opts.agent) ? opts.agent : void 0;
    this.hops = all.map((hop, i) => {
      const target = (0,transport_target/* parseTarget */.h)(hop.target);
      const where = hop.alias === void 0 ? (0,transport_target/* formatTarget */.P)(target) : `${hop.alias}, ${(0,transport_target/* formatTarget */.P)(target)}`;
      const name = i === all.length - 1 ? where : `jump host ${i + 1} of ${all.length - 1} (${where})`;
      return { target, name, options: hop, ...readIdentityFiles(hop.identityFiles ?? [], opts) };
    });
    this.target = this.hops.at(-1).target;
    this.name = this.hops.at(-1).name;
    for (const hop of this.hops) {
      const o = hop.options;
      if (o.hostKeyFingerprint === void 0 && o.knownHostsFile === void 0 && !o.knownHostsFiles?.length) {
        throw new errors/* UserError */.yo({
          message: `no host key to verify ${hop.name} against: give a pinned fingerprint or a known_hosts file`,
          fix: `check the host's key out of band and pin its fingerprint from \`${keyscan(hop.target)} | ssh-keygen -lf -\``
        });
      }
      if (o.hostKeyFingerprint !== void 0) normalizeFingerprint(o.hostKeyFingerprint);
      const usesAgent = this.agent !== void 0 && !o.identitiesOnly;
      if (this.keys.length === 0 && hop.keys.length === 0 && !usesAgent) {
        throw new errors/* UserError */.yo({
          message: `no SSH key to log in to ${hop.name} with: ${this.noKeyReasons(hop).join("; ")}`,
          fix: `put the private key's text in ${exec_secrets/* KEY_ENV */.uM} or its path in ${exec_secrets/* KEY_FILE_ENV */.Nr}, add it to a running ssh-agent (SSH_AUTH_SOCK), or name it as IdentityFile in the SSH config`
        });
      }
    }
    const secrets = [...this.keys, ...this.hops.flatMap((h) => h.keys)].flatMap((k) => [k.text, k.passphrase ?? ""]);
    this.redact = redactor(secrets);
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }
  opts;
  hops;
  target;
  /** The target as messages name it. */
  name;
  /** The keys every hop is offered first: the variable's and the key file's. */
  keys;
  agent;
  /** A message with every key's text and passphrase taken out. */
  redact;
  retryDelaysMs;
  conn;
  connecting;
  closed = false;
  async close() {
    this.closed = true;
    const conn = this.conn;
    if (!conn?.alive) return;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      void Promise.all(conn.closed).then(() => {
        clearTimeout(timer);
        resolve();
      });
      conn.client.end();
    });
  }
  /** The live connection, or a new one (shared by all callers waiting for it). */
  connection(signal) {
    if (this.closed) return Promise.reject(new Error(`the transport to ${this.name} is closed`));
    if (this.conn?.alive) return Promise.resolve(this.conn);
    if (!this.connecting) {
      this.connecting = this.connectWithRetry().finally(() => this.connecting = void 0);
      this.connecting.catch(() => {
      });
    }
    return abortable(this.connecting, signal);
  }
  async connectWithRetry() {
    let last;
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryDelaysMs[attempt - 1]));
      if (this.closed) throw new Error(`the transport to ${this.name} is closed`);
      try {
        const conn = await this.connectOnce();
        if (this.closed) {
          for (const client of conn.clients) client.end();
          throw new Error(`the transport to ${this.name} is closed`);
        }
        this.conn = conn;
        return conn;
      } catch (e) {
        if (e instanceof errors/* UserError */.yo) throw e;
        last = e;
      }
    }
    const jumps = this.hops.slice(0, -1).map((h) => (0,transport_target/* formatTarget */.P)(h.target));
    const { port, user, host } = this.target;
    throw new errors/* UserError */.yo({
      message: `cannot connect to ${this.name} after ${this.retryDelaysMs.length + 1} attempts: ${last?.message}`,
      fix: `check that the host is up and the target is right, e.g. with \`ssh ${jumps.length ? `-J ${jumps.join(",")} ` : ""}-p ${port} ${user}@${host} true\``
    });
  }
  /** Logs in to each hop in turn, each through a channel the one before forwards to it. */
  async connectOnce() {
    const clients = [];
    const closed = [];
    const made = {};
    const drop = (why) => {
      for (const client of clients) client.end();
      const conn = made.conn;
      if (!conn) {
        made.lostEarly ??= why;
        return;
      }
      if (!conn.alive) return;
      conn.alive = false;
      if (this.conn === conn) this.conn = void 0;
      for (const tell of conn.onDrop) tell(why);
      conn.onDrop.clear();
    };
    try {
      let sock;
      for (const [i, hop] of this.hops.entries()) {
        const { client, closing } = await this.connectHop(hop, sock, drop);
        clients.push(client);
        closed.push(closing);
        const next = this.hops[i + 1];
        if (next) sock = await this.forward(client, hop, next);
      }
    } catch (e) {
      for (const client of clients) client.end();
      throw e;
    }
    if (made.lostEarly) throw made.lostEarly;
    made.conn = { client: clients.at(-1), clients, closed, alive: true, onDrop: /* @__PURE__ */ new Set(), channels: 0 };
    return made.conn;
  }
  /** One hop's logged-in client; `drop` is told if it goes down afterwards. */
  async connectHop(hop, sock, drop) {
    const { host, port, user } = hop.target;
    const sources = await this.hostKeySources(hop);
    const algorithms = hostKeyAlgorithms(host, port, sources);
    const auth = new Authentication(
      hop,
      [...this.keys, ...hop.keys],
      this.agentFor(hop),
      this.opts.keyboardInteractive
    );
    const client = new lib.Client();
    let refused;
    const config = {
      ...sock ? { sock } : { host, port },
      username: user,
      authHandler: auth.handler,
      hostVerifier: (key) => {
        refused = checkHostKey(key, host, port, sources);
        return refused === void 0;
      },
      keepaliveInterval: this.opts.keepaliveIntervalMs ?? 15e3,
      keepaliveCountMax: this.opts.keepaliveCountMax ?? 3,
      // ssh2's ready timeout covers the login, and so a person typing a code: give them time.
      readyTimeout: this.opts.readyTimeoutMs ?? (this.opts.keyboardInteractive ? PROMPT_READY_TIMEOUT_MS : 2e4),
      ...algorithms ? { algorithms: { serverHostKey: algorithms } } : {}
    };
    const closing = new Promise((resolve) => client.once("close", () => resolve()));
    return new Promise((resolve, reject) => {
      let ready = false;
      const down = (why) => ready ? drop(why) : reject(why);
      client.on("ready", () => {
        ready = true;
        resolve({ client, closing });
      });
      client.on("error", (e) => {
        if (!ready && auth.goesOn(e)) return;
        client.end();
        down(this.connectError(hop, e, refused, auth));
      });
      client.on("end", () => down(new Error(`the connection to ${hop.name} ended`)));
      client.on("close", () => down(new Error(`the connection to ${hop.name} closed`)));
      try {
        client.connect(config);
      } catch (e) {
        down(new Error(`cannot connect to ${hop.name}: ${this.redact(e.message)}`));
      }
    });
  }
  /** A channel from `via` to the next hop's host and port, as `ssh -W` opens it. */
  forward(via, hop, next) {
    const { host, port } = next.target;
    return new Promise((resolve, reject) => {
      try {
        via.forwardOut("127.0.0.1", 0, host, port, (err, channel) => {
          if (!err) {
            resolve(channel);
            return;
          }
          const message = `${hop.name} could not open a channel to ${host}:${port}: ${this.redact(err.message)}`;
          if (err.reason === ADMINISTRATIVELY_PROHIBITED) {
            reject(
              new errors/* UserError */.yo({
                message,
                fix: `ask the admins of ${(0,transport_target/* formatTarget */.P)(hop.target)} whether it allows TCP forwarding (AllowTcpForwarding), or use a bastion that does`
              })
            );
          } else reject(new Error(message));
        });
      } catch (e) {
        reject(new Error(`${hop.name} dropped before forwarding to ${host}:${port}: ${e.message}`));
      }
    });
  }
  agentFor(hop) {
    return hop.options.identitiesOnly ? void 0 : this.agent;
  }
  /** What an ssh2 error means for the user: refusals are UserErrors (never retried), the rest plain Errors. */
  connectError(hop, e, refusedHostKey, auth) {
    if (refusedHostKey) {
      if (hop === this.hops.at(-1)) return refusedHostKey;
      return new errors/* UserError */.yo(refusedHostKey.problems.map((p) => ({ ...p, message: `${hop.name}: ${p.message}` })));
    }
    if (e.level === "client-authentication") return auth.failure(this.noKeyReasons(hop));
    return new Error(`connection to ${hop.name}: ${this.redact(e.message)}`);
  }
  /** Why each key source gave nothing, for the message that says none did. */
  noKeyReasons(hop) {
    const { keyEnv, keyFile, agent } = this.opts;
    return [
      ...keyEnv === void 0 && keyFile === void 0 ? ["no key variable or key file given"] : [],
      ...hop.options.identitiesOnly ? ["IdentitiesOnly: no ssh-agent"] : agent === void 0 ? ["no ssh-agent (SSH_AUTH_SOCK is not set)"] : this.agent === void 0 ? [`no ssh-agent at ${agent}`] : [],
      ...hop.skipped
    ];
  }
  async hostKeySources(hop) {
    const sources = [];
    const { hostKeyFingerprint, knownHostsFile, knownHostsFiles } = hop.options;
    if (hostKeyFingerprint !== void 0) {
      sources.push({ kind: "fingerprint", fingerprint: normalizeFingerprint(hostKeyFingerprint) });
    }
    if (knownHostsFile !== void 0) {
      const text = await (0,promises_.readFile)(knownHostsFile, "utf8").catch((e) => {
        throw new errors/* UserError */.yo({
          message: `cannot read the known_hosts file ${knownHostsFile}: ${e.code ?? e.message}`,
          fix: `create it with the host's checked key: ${keyscan(hop.target)} >> ${knownHostsFile}`
        });
      });
      sources.push({ kind: "known_hosts", files: [{ path: knownHostsFile, text }] });
    }
    if (knownHostsFiles?.length) {
      const files = [];
      for (const path of knownHostsFiles) {
        const text = await (0,promises_.readFile)(path, "utf8").catch((e) => {
          if (e.code === "ENOENT") return void 0;
          throw new errors/* UserError */.yo({
            message: `cannot read the known_hosts file ${path}: ${e.code ?? e.message}`,
            fix: "make it readable, or name another as UserKnownHostsFile in the SSH config"
          });
        });
        if (text !== void 0) files.push({ path, text });
      }
      if (files.length === 0) {
        throw new errors/* UserError */.yo({
          message: `no known_hosts file to verify ${hop.name} against: none of ${knownHostsFiles.join(", ")} exists`,
          fix: `check the host's key out of band, then add it (\`${keyscan(hop.target)}\`) to ${knownHostsFiles[0]}, or pin it with host_key`
        });
      }
      sources.push({ kind: "known_hosts", files });
    }
    return sources;
  }
}
function keyscan(t) {
  return `ssh-keyscan -p ${t.port} ${t.host}`;
}


;// CONCATENATED MODULE: ./lib/exec/transport/ssh/sftp.js



const DEFAULT_FILE_TIMEOUT_MS = 6e4;
const NO_SUCH_FILE = 2;
class SftpFiles {
  constructor(connector, opts) {
    this.connector = connector;
    this.opts = opts;
  }
  connector;
  opts;
  async writeFile(path, data, opts = {}) {
    await this.withSftp("writeFile", path, async (sftp, target) => {
      const temp = (0,transport/* tempPathFor */.FD)(target);
      try {
        await done(
          (cb) => sftp.writeFile(temp, data, { flag: "wx", ...opts.mode === void 0 ? {} : { mode: opts.mode } }, cb)
        );
        if (opts.mode !== void 0) await done((cb) => sftp.chmod(temp, opts.mode, cb));
        await rename(sftp, temp, target);
      } catch (e) {
        await done((cb) => sftp.unlink(temp, cb)).catch(() => {
        });
        throw e;
      }
    });
  }
  async readFile(path, opts = {}) {
    const maxBytes = opts.maxBytes ?? transport/* DEFAULT_MAX_READ_BYTES */.W2;
    return this.withSftp("readFile", path, async (sftp, target) => {
      const handle = await call((cb) => sftp.open(target, "r", cb)).catch(ifMissing(void 0));
      if (!handle) return void 0;
      try {
        const { size } = await call((cb) => sftp.fstat(handle, cb));
        if (size > maxBytes) throw (0,transport/* tooLarge */.g$)(target, size, maxBytes);
        const chunks = [];
        let total = 0;
        for (; ; ) {
          const chunk = Buffer.alloc(Math.min(Math.max(size - total, 0) + 32 * 1024, maxBytes + 1 - total));
          const n = await call((cb) => sftp.read(handle, chunk, 0, chunk.length, total, cb));
          if (n === 0) break;
          chunks.push(chunk.subarray(0, n));
          total += n;
          if (total > maxBytes) throw (0,transport/* tooLarge */.g$)(target, total, maxBytes);
        }
        return Buffer.concat(chunks).toString("utf8");
      } finally {
        await done((cb) => sftp.close(handle, cb)).catch(() => {
        });
      }
    });
  }
  async stat(path) {
    return this.withSftp("stat", path, async (sftp, target) => {
      const s = await call((cb) => sftp.stat(target, cb)).catch(ifMissing(void 0));
      return s && { size: s.size, mtimeMs: s.mtime * 1e3, isFile: s.isFile() };
    });
  }
  async realpath(path) {
    return this.withSftp(
      "realpath",
      path,
      (sftp, target) => call((cb) => sftp.realpath(target, cb)).catch(ifMissing(void 0))
    );
  }
  async rename(from, to) {
    if (!to.startsWith("/")) throw new Error(`rename to a path that is not absolute: ${to}`);
    await this.withSftp("rename", from, async (sftp, source) => {
      await done((cb) => sftp.rename(source, to, cb));
    });
  }
  async mkdirp(path) {
    await this.withSftp("mkdirp", path, async (sftp, target) => {
      const make = async (dir) => {
        const s = await call((cb) => sftp.stat(dir, cb)).catch(ifMissing(void 0));
        if (s?.isDirectory()) return;
        if (s)
          throw new errors/* UserError */.yo({
            message: `${dir} on ${this.connector.name} exists and is not a directory`,
            fix: "move that file away, or give a workdir where campaign can make its directories"
          });
        const parent = dir.slice(0, dir.lastIndexOf("/"));
        if (parent !== "") await make(parent);
        await done((cb) => sftp.mkdir(dir, cb)).catch(async (e) => {
          const now = await call((cb) => sftp.stat(dir, cb)).catch(() => void 0);
          if (!now?.isDirectory()) throw e;
        });
      };
      await make(target.replace(/\/+$/, ""));
    });
  }
  /** Runs one SFTP operation on `path` (resolved against the home directory), bounded by the file timeout. */
  async withSftp(what, path, op) {
    const timeoutMs = this.opts.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort(new transport/* LinkError */.R6(`${what} ${path} did not finish within ${timeoutMs} ms on ${this.connector.name}`)),
      timeoutMs
    );
    try {
      const conn = await this.connector.connection(job.signal);
      conn.sftp ??= this.openSftp(conn);
      const sftp = await abortable(conn.sftp, job.signal);
      conn.home ??= call((cb) => sftp.realpath(".", cb)).catch((e) => {
        conn.home = void 0;
        throw e;
      });
      const home = await abortable(conn.home, job.signal);
      return await abortable(op(sftp, (0,transport/* resolveHome */.e6)(path, home)), job.signal);
    } catch (e) {
      if (e instanceof errors/* UserError */.yo || e === job.signal.reason) throw e;
      const answered = typeof e.code === "number";
      const message = `${what} ${path} on ${this.connector.name} failed: ${this.connector.redact(e.message)}`;
      if (!answered) throw new transport/* LinkError */.R6(message, { cause: e });
      throw new errors/* UserError */.yo({
        message,
        fix: `check that the login user may ${what === "readFile" || what === "stat" || what === "realpath" ? "read" : "write"} there, and that its disk has room`
      });
    } finally {
      clearTimeout(timer);
    }
  }
  /** The connection's one SFTP session; opened again if it closes. */
  openSftp(conn) {
    const opened = new Promise((resolve, reject) => {
      conn.client.sftp((err, sftp) => {
        if (!err) resolve(sftp);
        else if (conn.alive)
          reject(
            new transport/* NoFileTransfer */.tp({
              message: `${this.connector.name} opened no SFTP session (${this.connector.redact(err.message)}): this login allows no file transfer`,
              fix: "on an automation node whose key has only the Slurm list, set cluster.restricted: slurm (or ask the centre for the transfer commands as well); elsewhere, check that the SSH server has an SFTP subsystem"
            })
          );
        else reject(err);
      });
    });
    const forget = () => {
      if (conn.sftp === opened) conn.sftp = void 0;
    };
    opened.then((sftp) => sftp.on("close", forget), forget);
    return opened;
  }
}
function done(f) {
  return new Promise((resolve, reject) => f((err) => err ? reject(err) : resolve()));
}
function call(f) {
  return new Promise((resolve, reject) => f((err, value) => err ? reject(err) : resolve(value)));
}
function ifMissing(value) {
  return (e) => {
    if (e.code === NO_SUCH_FILE) return value;
    throw e;
  };
}
async function rename(sftp, from, to) {
  let unsupported = false;
  await done((cb) => {
    try {
      sftp.ext_openssh_rename(from, to, cb);
    } catch {
      unsupported = true;
      cb();
    }
  });
  if (!unsupported) return;
  await done((cb) => sftp.unlink(to, cb)).catch(ifMissing(void 0));
  await done((cb) => sftp.rename(from, to, cb));
}


;// CONCATENATED MODULE: ./lib/exec/transport/ssh.js



class SshTransport {
  connector;
  channels;
  files;
  /** Checks the options and reads the keys; throws a UserError for anything the user must fix. */
  constructor(opts) {
    this.connector = new Connector(opts);
    this.channels = new CommandChannels(this.connector, opts);
    this.files = new SftpFiles(this.connector, opts);
  }
  get commandsSent() {
    return this.channels.commandsSent;
  }
  exec(command, opts = {}) {
    return this.channels.exec(command, opts);
  }
  run(words, opts = {}) {
    return this.channels.run(words, opts);
  }
  attach(command, opts) {
    return this.channels.attach(command, opts);
  }
  writeFile(path, data, opts = {}) {
    return this.files.writeFile(path, data, opts);
  }
  readFile(path, opts = {}) {
    return this.files.readFile(path, opts);
  }
  stat(path) {
    return this.files.stat(path);
  }
  realpath(path) {
    return this.files.realpath(path);
  }
  rename(from, to) {
    return this.files.rename(from, to);
  }
  mkdirp(path) {
    return this.files.mkdirp(path);
  }
  close() {
    return this.connector.close();
  }
}



/***/ })

};
