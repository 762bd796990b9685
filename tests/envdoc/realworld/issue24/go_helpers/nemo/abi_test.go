// Excerpt from https://github.com/mudler/LocalAI at commit 82c191afadf5f005281e798ccfa0ffd0d5805030; license: MIT. Source backend/go/nemo-speech-cpp/abi_test.go lines 1, 26-33. Small excerpt for scanner testing; unmodified except for elision markers.
package main

// ...

func librariesPresent() bool {
	for _, n := range []string{
		libraryName("NEMO_SPEECH_ASR_LIBRARY", "libnemo_speech_asr_c"),
		libraryName("NEMO_SPEECH_TTS_LIBRARY", "libnemo_speech_tts"),
		libraryName("NEMO_SPEECH_NMT_LIBRARY", "libnemo_speech_nmt_c"),
	} {
		// ...
	}
	// ...
}
