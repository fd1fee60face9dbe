// TrellisUnits
