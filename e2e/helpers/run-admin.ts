import { Writable } from "node:stream";

import { runAdmin } from "../../scripts/lib/admin-commands";

// The admin CLI in-process with its output captured (the same io the server's admin socket gives it), so a test
// reads what an operator would see and its exit code. Thrown errors stay thrown (the CLI entry prints them).

const capture = () => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join("").trimEnd() };
};

export const runAdminCaptured = async (
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> => {
  const [out, err] = [capture(), capture()];
  const code = await runAdmin(argv, { stdout: out.stream, stderr: err.stream });
  return { code, out: out.text(), err: err.text() };
};
