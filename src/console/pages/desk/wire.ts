// The desk's wire shapes that the event folding (live.ts) shares with the REST reads: plain data,
// no DOM, so the folding is tested without a browser (test/console/).

export interface Snapshot {
  balance: number;
  equity: number;
  unrealizedPnl: number;
  marginUsed: number;
  positions: number;
  pendingOrders: number;
}

export interface Order {
  id: number;
  contractId: string;
  creationTimestamp: string;
  updateTimestamp: string | null;
  status: number;
  type: number;
  side: number;
  size: number;
  limitPrice: number | null;
  stopPrice: number | null;
  fillVolume: number;
  filledPrice: number | null;
}

export interface Position {
  id: number;
  contractId: string;
  contractDisplayName: string;
  type: number;
  size: number;
  averagePrice: number;
}

export interface Trade {
  id: number;
  contractId: string;
  creationTimestamp: string;
  price: number;
  fees: number;
  side: number;
  size: number;
  orderId: number;
}
