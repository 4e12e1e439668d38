import { AppError } from "@/lib/core/errors";
import type { Principal } from "@/lib/credentials/principal";

/** The buyer behind a request on the account surface. @throws AppError identity_required for anyone else */
export const buyerIdOrThrow = (principal: Principal): string => {
  if (principal.kind !== "buyer") {
    throw new AppError("identity_required", "The buyer account surface needs the buyer's bearer token");
  }
  return principal.buyerId;
};
