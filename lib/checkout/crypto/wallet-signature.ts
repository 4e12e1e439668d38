import "server-only";

import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { fromBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";

import { AppError } from "@/lib/core/errors";

// What both wallet pages check before the server executes anything the buyer's wallet signed: the bytes are base64
// of a transaction (their digest says which prepared payment they are), and the signature is the buyer's over
// exactly the bytes we prepared.

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The digest of base64 transaction bytes. @throws AppError invalid_request at $.transaction */
export const digestOfBytes = (bytes: string): string => {
  if (typeof bytes !== "string" || bytes.length > 200_000 || !BASE64.test(bytes)) {
    throw new AppError("invalid_request", "The transaction is not base64 bytes", { path: "$.transaction" });
  }
  try {
    return TransactionDataBuilder.getDigestFromBytes(fromBase64(bytes));
  } catch {
    throw new AppError("invalid_request", "The transaction bytes do not parse", { path: "$.transaction" });
  }
};

/**
 * The wallet's signature over our prepared bytes, by the buyer's address.
 * @throws AppError invalid_request at $.signature (missing, another wallet, or other bytes)
 */
export const assertSignedByBuyer = async (
  preparedBytes: string,
  signature: string,
  buyerAddress: string,
): Promise<void> => {
  if (typeof signature !== "string" || signature.length === 0 || signature.length > 4000) {
    throw new AppError("invalid_request", "The wallet's signature is missing", { path: "$.signature" });
  }
  try {
    await verifyTransactionSignature(fromBase64(preparedBytes), signature, { address: buyerAddress });
  } catch {
    throw new AppError(
      "invalid_request",
      "Your wallet's signature does not match this payment (another account, or other bytes signed), so nothing was charged. Try again, or use another wallet.",
      { path: "$.signature" },
    );
  }
};
