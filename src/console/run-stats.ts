// Round-trip statistics as the server words them (http/shared/present-common.ts `presentStats`, in
// USD): one shape for a playground run's results and a replay session's.

export interface WireRunStats {
  totalPnl: number;
  totalTrades: number;
  winningTrades: number;
  losingTrades: number;
  winRate: number;
  averageWin: number;
  averageLoss: number;
  largestWin: number;
  largestLoss: number;
  profitFactor: number | null;
  maxDrawdown: number;
  finalBalance: number;
}
