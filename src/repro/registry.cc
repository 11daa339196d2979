// One line per reproduced system; each lives in its own file in this folder.
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {

void RegisterSelectN(ReproRegistry& reg);          // repro_select_n.cc
void RegisterByteTransformer(ReproRegistry& reg);  // repro_bytetransformer.cc
void RegisterDistCA(ReproRegistry& reg);           // repro_distca.cc
void RegisterChunkFlow(ReproRegistry& reg);        // repro_chunkflow.cc
void RegisterSkrull(ReproRegistry& reg);           // repro_skrull.cc
void RegisterBgl(ReproRegistry& reg);              // repro_bgl.cc
void RegisterAligraph(ReproRegistry& reg);         // repro_aligraph.cc
void RegisterCaliex(ReproRegistry& reg);           // repro_caliex.cc
void RegisterGoldMiner(ReproRegistry& reg);        // repro_goldminer.cc
void RegisterAutoLrs(ReproRegistry& reg);          // repro_autolrs.cc
void RegisterUgrapher(ReproRegistry& reg);         // repro_ugrapher.cc
void RegisterGnnAlgebra(ReproRegistry& reg);       // repro_gnn_algebra.cc
void RegisterHelios(ReproRegistry& reg);           // repro_helios.cc
void RegisterAryl(ReproRegistry& reg);             // repro_aryl.cc
void RegisterEasyScale(ReproRegistry& reg);        // repro_easyscale.cc
void RegisterMigServing(ReproRegistry& reg);       // repro_mig_serving.cc
void RegisterFlashLlm(ReproRegistry& reg);         // repro_flash_llm.cc
void RegisterElasticBatch(ReproRegistry& reg);     // repro_elasticbatch.cc
void RegisterByteComp(ReproRegistry& reg);         // repro_bytecomp.cc
void RegisterPicasso(ReproRegistry& reg);          // repro_picasso.cc
void RegisterQSync(ReproRegistry& reg);            // repro_qsync.cc
void RegisterBolt(ReproRegistry& reg);             // repro_bolt.cc
void RegisterCdmpp(ReproRegistry& reg);            // repro_cdmpp.cc
void RegisterRlhfuse(ReproRegistry& reg);          // repro_rlhfuse.cc
void RegisterTapas(ReproRegistry& reg);            // repro_tapas.cc
void RegisterStepAudio(ReproRegistry& reg);        // repro_step_audio.cc
void RegisterStep1xEdit(ReproRegistry& reg);       // repro_step1x_edit.cc
void RegisterPipeWeaver(ReproRegistry& reg);       // repro_pipeweaver.cc
void RegisterSpindle(ReproRegistry& reg);          // repro_spindle.cc
void RegisterDsv(ReproRegistry& reg);              // repro_dsv.cc

void RegisterReproductions(ReproRegistry& reg) {
  RegisterSelectN(reg);
  RegisterByteTransformer(reg);
  RegisterDistCA(reg);
  RegisterChunkFlow(reg);
  RegisterSkrull(reg);
  RegisterBgl(reg);
  RegisterAligraph(reg);
  RegisterCaliex(reg);
  RegisterGoldMiner(reg);
  RegisterAutoLrs(reg);
  RegisterUgrapher(reg);
  RegisterGnnAlgebra(reg);
  RegisterHelios(reg);
  RegisterAryl(reg);
  RegisterEasyScale(reg);
  RegisterMigServing(reg);
  RegisterFlashLlm(reg);
  RegisterElasticBatch(reg);
  RegisterByteComp(reg);
  RegisterPicasso(reg);
  RegisterQSync(reg);
  RegisterBolt(reg);
  RegisterCdmpp(reg);
  RegisterRlhfuse(reg);
  RegisterTapas(reg);
  RegisterStepAudio(reg);
  RegisterStep1xEdit(reg);
  RegisterPipeWeaver(reg);
  RegisterSpindle(reg);
  RegisterDsv(reg);
}

}  // namespace dlsim::repro
