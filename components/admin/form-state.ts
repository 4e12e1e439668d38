/** What an account form's server action answers: the message of each refused field, or a notice. */
export type FormState = { ok: boolean; errors: Record<string, string>; message?: string };
