// A small Dockerfile reader for our own checks (scripts/deploy-files.test.ts, scripts/check-dockerfile-commands.ts):
// comments and parser directives dropped, `\` continuations joined (comment lines inside them dropped, as
// BuildKit does), one entry per instruction with its leading `--flags`, the exec (JSON) form parsed, and stages
// split at FROM with global ARG defaults substituted into the image. It covers the syntax our Dockerfile uses; a
// heredoc or an escape directive would be refused, not misread.

export type Instruction = {
  keyword: string;
  /** The arguments after the flags, as written (continuations joined with a space). */
  args: string;
  /** `--name=value` flags before the arguments (COPY --from, HEALTHCHECK --interval, …). */
  flags: Record<string, string>;
  /** The exec form's array when the arguments are a JSON array. */
  exec: string[] | null;
  line: number;
};

export type Stage = { name: string | null; image: string; instructions: Instruction[] };

export type Dockerfile = { globalArgs: Record<string, string>; stages: Stage[] };

const logicalLines = (text: string): { text: string; line: number }[] => {
  const out: { text: string; line: number }[] = [];
  let current: { text: string; line: number } | null = null;
  text.split("\n").forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#")) {
      if (/^#\s*escape\s*=/.test(trimmed) && !current && out.length === 0) {
        throw new Error("escape directives are not supported by this reader");
      }
      return; // a comment (inside a continuation too) or a parser directive
    }
    if (trimmed === "" && !current) return;
    const continued = /\\\s*$/.test(raw);
    const piece = continued ? raw.replace(/\\\s*$/, "") : raw;
    current = current
      ? { ...current, text: `${current.text} ${piece.trim()}` }
      : { text: piece.trim(), line: i + 1 };
    if (!continued) {
      out.push(current);
      current = null;
    }
  });
  if (current) throw new Error("the Dockerfile ends inside a line continuation");
  return out;
};

const parseInstruction = ({ text, line }: { text: string; line: number }): Instruction => {
  const match = /^(\S+)\s*(.*)$/.exec(text);
  if (!match) throw new Error(`line ${line}: empty instruction`);
  const keyword = match[1]!.toUpperCase();
  let rest = match[2] ?? "";
  if (/<<[-\w"']/.test(rest)) throw new Error(`line ${line}: heredocs are not supported by this reader`);
  const flags: Record<string, string> = {};
  for (;;) {
    const flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    if (!flag) break;
    flags[flag[1]!] = flag[2] ?? "true";
    rest = rest.slice(flag[0].length);
  }
  let exec: string[] | null = null;
  if (rest.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(rest);
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === "string")) exec = parsed;
    } catch {
      exec = null; // not valid JSON: Docker runs it in the shell form
    }
  }
  return { keyword, args: rest, flags, exec, line };
};

const substitute = (value: string, vars: Record<string, string>): string =>
  value.replace(/\$\{?(\w+)\}?/g, (all, name: string) => vars[name] ?? all);

export const parseDockerfile = (text: string): Dockerfile => {
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of logicalLines(text).map(parseInstruction)) {
    if (instruction.keyword === "FROM") {
      const [image, as, name] = instruction.args.split(/\s+/);
      if (!image) throw new Error(`line ${instruction.line}: FROM without an image`);
      stages.push({
        image: substitute(image, globalArgs),
        name: as?.toUpperCase() === "AS" && name ? name : null,
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG") {
        throw new Error(`line ${instruction.line}: only ARG may come before the first FROM`);
      }
      const [name, value = ""] = instruction.args.split("=", 2);
      globalArgs[name!.trim()] = value.trim();
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
};

/** `ENV a=1 b=2` (and the legacy `ENV a 1`) as a record. */
export const envOf = (instruction: Instruction): Record<string, string> => {
  const pairs = [...instruction.args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)];
  if (pairs.length === 0) {
    const [name, ...value] = instruction.args.split(/\s+/);
    return name ? { [name]: value.join(" ") } : {};
  }
  return Object.fromEntries(
    pairs.map(([, k, v]) => [k!, v!.startsWith('"') ? (JSON.parse(v!) as string) : v!]),
  );
};
