import "server-only";

import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { fromBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";

import { AppError } from "@/lib/core/errors";
import type { ChainPort } from "@/lib/payments/crypto/chain";

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

/**
 * Sends the buyer's signed bytes to the fullnode. A node that refuses them ran nothing, and the usual cause is that
 * their coins were spent meanwhile by another payment from the same wallet (two quotes built from the same coins,
 * one paid first): those bytes can never pay again, so the page is told to get a new price (`renew` says how) rather
 * than shown a provider error and offered the same bytes.
 * @throws AppError checkout_not_modifiable at $.transaction (refused by the node), payment_provider_error
 */
export const executeSignedPayment = async (
  chain: Pick<ChainPort, "executeTransaction">,
  bytes: string,
  signature: string,
  renew: string,
): Promise<string> => {
  try {
    return await chain.executeTransaction(bytes, [signature]);
  } catch (error) {
    if (
      error instanceof AppError &&
      error.code === "payment_provider_error" &&
      error.details?.reason === "refused"
    ) {
      throw new AppError(
        "checkout_not_modifiable",
        `The Sui network refused this payment, most likely because its coins were spent by another payment from your wallet. Nothing was charged. ${renew}`,
        { path: "$.transaction", cause: error },
      );
    }
    throw error;
  }
};
