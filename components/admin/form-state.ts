/**
 * What a form's server action answers: the message of each refused field, or a notice; `values` are the fields as
 * sent, so a refused form shows them again (React resets a form after its action) for the user to correct.
 */
export type FormState = {
  ok: boolean;
  errors: Record<string, string>;
  message?: string;
  values?: Record<string, string>;
};
