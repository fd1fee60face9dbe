// TrellisEngine
