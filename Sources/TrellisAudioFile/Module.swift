// TrellisAudioFile
