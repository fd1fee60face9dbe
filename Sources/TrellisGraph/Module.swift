// TrellisGraph
