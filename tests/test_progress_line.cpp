// What the live progress line says: a trial's place, epoch and step with its ETA, and an untimed pass by
// name with its steps (or, with none counted, its time so far).
#include <gtest/gtest.h>

#include "amp/precision_mode.h"
#include "app/progress_line.h"

namespace {

using ampbench::amp::PrecisionMode;
using ampbench::train::PassKind;

TEST(ProgressLine, ATrialShowsItsPlaceEpochStepEtaAndLoss) {
  ampbench::train::Progress p;
  EXPECT_EQ(ampbench::app::progress_text(p, 1.0), "");  // before the first epoch: nothing to show
  p.mode = static_cast<int>(PrecisionMode::fp16);
  p.trial = 1, p.trials = 3, p.epoch = 2, p.epochs = 3, p.step = 45, p.steps = 96;
  p.planned_done = 5, p.planned_total = 12;
  p.last_train_loss = 1.234;
  // 141 of 288 steps in 14.1 s: 14.7 s to go.
  EXPECT_EQ(ampbench::app::progress_text(p, 14.1),
            "[5/12] fp16 trial 1/3 epoch 2/3 step 45/96 ETA 0:14 loss 1.2340");
}

TEST(ProgressLine, AnUntimedPassShowsItsNameAndStepsOrItsTime) {
  ampbench::train::Progress p;
  p.planned_done = 7, p.planned_total = 9;
  {
    ampbench::train::UntimedPassProgress shown(&p, static_cast<int>(PrecisionMode::bf16), PassKind::numerics,
                                               10);
    shown.steps_done(3);
    EXPECT_EQ(ampbench::app::progress_text(p, 6.0), "[7/9] bf16 numerics pass step 3/10 ETA 0:14");
  }
  {
    ampbench::train::UntimedPassProgress shown(&p, static_cast<int>(PrecisionMode::fp16),
                                               PassKind::first_gradient, 0);
    EXPECT_EQ(ampbench::app::progress_text(p, 102.0), "[7/9] fp16 first-batch gradient 1:42");
  }
  // Once the pass ends the line is the trials' again (none has begun here: nothing to show).
  EXPECT_EQ(ampbench::app::progress_text(p, 1.0), "");
}

}  // namespace
