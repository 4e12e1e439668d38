-- CreateTable
CREATE TABLE "seen_signatures" (
    "id" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "seen_signatures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "seen_signatures_expires_at_idx" ON "seen_signatures"("expires_at");
