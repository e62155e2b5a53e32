-- CreateIndex
CREATE INDEX "Job_status_seq_idx" ON "Job"("status", "seq");

