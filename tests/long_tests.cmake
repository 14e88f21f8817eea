# The suite's longest tests and about what each took (seconds, side by side on a 2-core machine): ctest
# starts the costliest first, so that in a build folder with no timings of its own yet (CI's fresh clone)
# no long test is left running alone at the end. Only the order depends on these figures; a test not
# defined in this build is passed over.
set(_ampbench_long_tests
  ExportParity.AnExportedTorchvisionResNet18TrainsAsItsModuleDoesInPython 400
  ExportParity.TheScriptHandsTheBuilderItsKeywords 170
  Cli.TheAuditedModesRunTheShippedMlpBesideFp32AndBf16WithTheirAuditsAndTable 130
  PythonParity.ThePythonPeerReadsTheSameDataFiles 125
  ExportParity.AnLstmThatFailsInA16BitModeFailsThatModeAlone 85
  PythonParity.PureBf16MatchesTheSameLoopInPythonStepForStep 80
  ExportParity.ABertClassifierExportedByTheScriptTrainsOnSequenceClassesInEveryMode 75
  ExportParity.AnExportedTransformersGpt2TrainsAsItsModuleDoesInPython 75
  ExportParity.AModuleWithDropoutAndBatchNormExportedByTheScriptTrainsInEveryModeUnderAutocast 70
  ExportParity.AnExportedTransformersLlamaTrainsAsItsModuleDoesInPython 55
  ModelParity.LlamaGivesTransformersOutputsForTheSameWeights 50
  Cli.ASweepRunsEachPointIntoItsFolderAndReportsTheirOwnFigures 50)
while(_ampbench_long_tests)
  list(POP_FRONT _ampbench_long_tests _name _seconds)
  set_tests_properties(${_name} PROPERTIES COST ${_seconds})
endwhile()
