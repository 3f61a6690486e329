/** Made-up but plausible job data, so the console's data panes read like a real system's. */
import type { EmailData } from './processors/emails';
import type { InventoryData } from './processors/inventory';
import type { PartnerCallData } from './processors/partner-api';
import type { PaymentData } from './processors/payments';
import type { ReportData } from './processors/reports';
import type { TenantSyncData } from './processors/tenant-sync';
import type { TranscodeData } from './processors/transcode';
import { between, pick } from './timing';

const PEOPLE = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'ken', 'margaret', 'linus'] as const;
const TEMPLATES = ['welcome', 'password-reset', 'receipt', 'weekly-summary'] as const;
const SKUS = ['MUG-BLK', 'TEE-M-NVY', 'STKR-PACK', 'HOOD-L-GRY', 'CAP-ONE'] as const;
const REPORTS = ['monthly-revenue', 'churn-by-cohort', 'inventory-aging', 'ad-spend'] as const;
const ENDPOINTS = ['/v2/contacts/sync', '/v2/deals/upsert', '/v2/notes'] as const;

const id = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10)}`;

export function emailData(): EmailData {
  return { to: `${pick(PEOPLE)}@example.com`, template: pick(TEMPLATES) };
}

export function transcodeData(): TranscodeData {
  const videoId = id('vid');
  return {
    videoId,
    source: `s3://uploads/${videoId}/original.mov`,
    renditions: ['1080p', '720p', '480p'],
  };
}

export function orderData(): {
  orderId: string;
  customer: string;
  payment: PaymentData;
  inventory: InventoryData;
} {
  const orderId = id('ord');
  const items = Array.from({ length: between(1, 3) }, () => ({
    sku: pick(SKUS),
    quantity: between(1, 3),
  }));
  return {
    orderId,
    customer: `${pick(PEOPLE)}@example.com`,
    payment: { orderId, amountCents: between(900, 25_000), currency: 'EUR' },
    inventory: { orderId, items },
  };
}

export function reportData(): ReportData {
  const month = new Date(Date.now() - between(0, 5) * 31 * 86_400_000).toISOString().slice(0, 7);
  return { report: pick(REPORTS), month };
}

export function partnerCallData(): PartnerCallData {
  return { partner: 'acme-crm', endpoint: pick(ENDPOINTS), contactId: between(1000, 99_999) };
}

export function tenantSyncData(tenant: string): TenantSyncData {
  return { tenant, records: between(10, 500) };
}
