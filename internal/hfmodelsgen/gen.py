import json, subprocess, os, sys, glob
KEYS = {"model_type","architectures","hidden_size","num_hidden_layers","num_attention_heads","vocab_size","intermediate_size",
"num_key_value_heads","num_kv_heads","n_head_kv","multi_query_group_num","head_dim","tie_word_embeddings","attention_bias","qkv_bias",
"max_position_embeddings","n_positions","max_seq_len","seq_length","model_max_length","max_target_positions","max_sequence_length","max_seq_length","seq_len",
"original_max_position_embeddings","num_experts","moe_num_experts","n_routed_experts","num_local_experts","num_experts_per_tok","experts_per_token","num_experts_per_token",
"moe_intermediate_size","n_shared_experts","shared_expert_intermediate_size","shared_intermediate_size","first_k_dense_replace","moe_layer_freq","decoder_sparse_step","mlp_only_layers",
"intermediate_size_mlp","interleave_moe_layer_step","moe_layers","attention_chunk_size","no_rope_layers","no_rope_layer_interval",
"kv_lora_rank","q_lora_rank","qk_rope_head_dim","qk_nope_head_dim","v_head_dim","layer_types","sliding_window","use_sliding_window","sliding_window_pattern","torch_dtype","dtype",
"linear_num_key_heads","linear_num_value_heads","linear_key_head_dim","linear_value_head_dim","linear_conv_kernel_dim","full_attention_interval","attn_output_gate","mamba_ssm_dtype","mamba_ssm_cache_dtype"}
ROPE = {"rope_type","type","factor","original_max_position_embeddings"}
VISION = {"model_type","hidden_size","num_hidden_layers","depth","num_heads","num_attention_heads","intermediate_size","patch_size","image_size","spatial_merge_size","temporal_patch_size","out_hidden_size","spatial_patch_size","merge_kernel_size","init_pos_emb_height"}
def trim_quant(q):
    out = {}
    for k in ["quant_method","bits","w_bit","group_size","q_group_size","zero_point","sym","quant_algo","kv_cache_quant_algo","fmt","weight_block_size","format"]:
        if k in q: out[k]=q[k]
    if isinstance(q.get("producer"),dict): out["producer"]={"name":q["producer"].get("name")}
    if isinstance(q.get("quantization"),dict):
        out["quantization"]={k:v for k,v in q["quantization"].items() if k in ("quant_algo","kv_cache_quant_algo","group_size")}
    if isinstance(q.get("config_groups"),dict):
        cg={}
        for name,g in sorted(q["config_groups"].items()):
            gg={}
            for part in ("weights","input_activations"):
                if isinstance(g.get(part),dict):
                    gg[part]={k:v for k,v in g[part].items() if k in ("num_bits","type","group_size","strategy","symmetric")}
            cg[name]=gg
        out["config_groups"]=cg
    if isinstance(q.get("kv_cache_scheme"),dict): out["kv_cache_scheme"]={"num_bits":q["kv_cache_scheme"].get("num_bits")}
    for k in ["modules_to_not_convert","ignore","exclude_modules","ignored_layers"]:
        lst=q.get(k)
        if isinstance(lst,list):
            attn=[s for s in lst if isinstance(s,str) and ("self_attn" in s or "attn." in s or s.endswith("attn")) and "norm" not in s]
            out[k]=attn[:1]  # one attention entry is all the cost model reads; the rest trimmed
    return out
def trim(c, top=True):
    out={k:v for k,v in c.items() if k in KEYS and v is not None}
    if "architectures" in out: out["architectures"]=out["architectures"][:1]
    if "layer_types" in out and isinstance(out["layer_types"],list):
        pass
    for rk in ("rope_scaling","rope_parameters"):
        if isinstance(c.get(rk),dict):
            r={k:v for k,v in c[rk].items() if k in ROPE}
            if r: out[rk]=r
    for qk in ("quantization_config","compression_config"):
        if isinstance(c.get(qk),dict): out[qk]=trim_quant(c[qk])
    if isinstance(c.get("text_config"),dict): out["text_config"]=trim(c["text_config"],False)
    if top:
        for vk in ("vision_config",):
            if isinstance(c.get(vk),dict):
                out[vk]={k:v for k,v in c[vk].items() if k in VISION}
    return out
entries={}
def aliases(key):
    # the registry's alias rule for Meta's renamed Llama ids (hfmodels.Aliases)
    org,_,name=key.partition("/")
    if org!="meta-llama": return [key]
    return [key, org+"/"+name[len("meta-"):]] if name.startswith("meta-") else [key, org+"/meta-"+name]
def add(id, cfg, source, revision="", alias_dedupe=False):
    key=id.lower()
    if key in entries or (alias_dedupe and any(a in entries for a in aliases(key))): return
    entries[key]={"id":id,"source":source,"revision":revision,"config":trim(cfg)}
def git_files(repo, pattern):
    out=subprocess.run(["git","-C",repo,"ls-tree","-r","--name-only","HEAD"],capture_output=True,text=True).stdout.split()
    return [f for f in out if pattern(f)]
def show(repo,f): return subprocess.run(["git","-C",repo,"show","HEAD:"+f],capture_output=True,text=True).stdout
AIC="/work/.mirror/ai-dynamo+aiconfigurator/repo"; AICREV="095f58a51c4ca8e61b66ec108d86f223f8d559ce"
for f in git_files(AIC, lambda f: "aiconfigurator_core/model_configs/" in f and f.endswith("_config.json") and not f.endswith("_hf_quant_config.json")):
    base=os.path.basename(f)[:-len("_config.json")]
    org,name=base.split("--",1)
    cfg=json.loads(show(AIC,f))
    qf=f[:-len("_config.json")]+"_hf_quant_config.json"
    src=f"huggingface.co/{org}/{name} config.json, as copied in ai-dynamo/aiconfigurator@{AICREV[:8]} {f}"
    if "quantization_config" not in cfg and qf in git_files(AIC, lambda x: x==qf):
        cfg["quantization_config"]=json.loads(show(AIC,qf)); src+=" with hf_quant_config.json as quantization_config"
    add(f"{org}/{name}", cfg, src)
seen=set()
# aichist.txt: `git log --all --format="C %H" --name-only` of the aiconfigurator mirror, first version of each model_configs file
for line in open(os.environ.get("AICHIST", "/tmp/aichist.txt")):
    c,f=line.split()
    b=os.path.basename(f)
    if b in seen or not b.endswith("_config.json") or b.endswith("_hf_quant_config.json"): continue
    seen.add(b)
    base=b[:-len("_config.json")]; org,name=base.split("--",1)
    txt=subprocess.run(["git","-C",AIC,"show",c+":"+f],capture_output=True,text=True).stdout
    if not txt: continue
    cfg=json.loads(txt)
    qf=f[:-len("_config.json")]+"_hf_quant_config.json"
    src=f"huggingface.co/{org}/{name} config.json, as copied in ai-dynamo/aiconfigurator@{c[:8]} {f}"
    qt=subprocess.run(["git","-C",AIC,"show",c+":"+qf],capture_output=True,text=True).stdout
    if "quantization_config" not in cfg and qt:
        cfg["quantization_config"]=json.loads(qt); src+=" with hf_quant_config.json as quantization_config"
    add(f"{org}/{name}", cfg, src)
IS="/work/.mirror/inference-sim+inference-sim/repo"; ISREV="f90a1e3a6787da17c2cd463dab6fb2660b1b1760"
ismap={"codellama-34b-instruct-hf":"codellama/CodeLlama-34b-Instruct-hf","deepseek-v2-lite":"deepseek-ai/DeepSeek-V2-Lite","glm-5.2-fp8":"zai-org/GLM-5.2-FP8",
"llama-2-7b-hf":"meta-llama/Llama-2-7b-hf","llama-3.1-70b-instruct":"meta-llama/Llama-3.1-70B-Instruct","llama-3.1-8b-instruct":"meta-llama/Llama-3.1-8B-Instruct",
"llama-4-scout-17b-16e-instruct-fp8-dynamic":"RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic","mistral-nemo-instruct-2407":"mistralai/Mistral-Nemo-Instruct-2407",
"mixtral-8x7b-v0.1":"mistralai/Mixtral-8x7B-v0.1","qwen2.5-7b-instruct":"Qwen/Qwen2.5-7B-Instruct","qwen3-14b":"Qwen/Qwen3-14B","qwen3-30b-a3b":"Qwen/Qwen3-30B-A3B","yi-34b":"01-ai/Yi-34B"}
for f in git_files(IS, lambda f: f.startswith("model_configs/") and f.endswith("/config.json")):
    d=f.split("/")[1]
    add(ismap[d], json.loads(show(IS,f)), f"huggingface.co/{ismap[d]} config.json, as copied in inference-sim/inference-sim@{ISREV[:8]} {f}")
# model_configs/ folders inference-sim removed since: the last commit that had each
ismap.update({"llama-2-70b-hf":"meta-llama/Llama-2-70b-hf","llama-3.1-8b":"meta-llama/Llama-3.1-8B","mistral-7b-v0.1":"mistralai/Mistral-7B-v0.1",
"mixtral-8x22b-instruct-v0.1":"mistralai/Mixtral-8x22B-Instruct-v0.1","mixtral-8x7b-instruct-v0.1":"mistralai/Mixtral-8x7B-Instruct-v0.1",
"llama-4-scout-17b-16e-instruct":"meta-llama/Llama-4-Scout-17B-16E-Instruct","mixtral-8x22b-v0.1":"mistralai/Mixtral-8x22B-v0.1","llama-3.1-8b-instruct":"meta-llama/Llama-3.1-8B-Instruct"})
hist=subprocess.run(["git","-C",IS,"log","--all","--format=C %H","--name-only"],capture_output=True,text=True).stdout.split("\n")
c=None; last={}
for line in hist:
    if line.startswith("C "): c=line[2:]; continue
    if line.startswith("model_configs/") and line.endswith("/config.json") and line not in last: last[line]=c
for f,c in sorted(last.items()):
    d=f.split("/")[1]
    txt=subprocess.run(["git","-C",IS,"show",c+":"+f],capture_output=True,text=True).stdout
    if not txt:  # removed in c: the version before
        txt=subprocess.run(["git","-C",IS,"show",c+"^:"+f],capture_output=True,text=True).stdout; c=c+"^"
    if txt: add(ismap[d], json.loads(txt), f"huggingface.co/{ismap[d]} config.json, as copied in inference-sim/inference-sim@{c[:8]}{'^' if c.endswith('^') else ''} {f}", alias_dedupe=True)
for f in sorted(glob.glob("/work/shared/data/model_configs/*.json")):
    base=os.path.basename(f)[:-5]; org,name=base.split("--",1)
    add(f"{org}/{name}", json.load(open(f)), f"huggingface.co/{org}/{name} config.json, as copied in ai-dynamo/aiconfigurator@{AICREV[:8]}")
# casys-kaist/LLMServingSim configs/model/<org>/<name>.json: "the full raw config.json from the
# model's HuggingFace repo" (its configs/model/README.md)
LSS="/work/.mirror/casys-kaist+LLMServingSim/repo"; LSSREV="5daddb21a545658d5150b535712d0494584b5278"
for f in git_files(LSS, lambda f: f.startswith("configs/model/") and f.endswith(".json")):
    id=f[len("configs/model/"):-len(".json")]
    if id.count("/")!=1 or "-16L" in id: continue  # a reduced-layer test variant is no published checkpoint
    add(id, json.loads(show(LSS,f)), f"huggingface.co/{id} config.json, as copied in casys-kaist/LLMServingSim@{LSSREV[:8]} {f}", alias_dedupe=True)
# aws-neuron/neuronx-distributed-inference: the Gemma 3 27B config its gemma3-vision test keeps
NXDI="/work/.mirror/aws-neuron+neuronx-distributed-inference/repo"; NXDIREV="4bcdc54bf3b6ccdad490e5cd0680a3dc95270b8e"
f="contrib/models/gemma3-vision/test/assets/gemma3_27b_config.json"
add("google/gemma-3-27b-it", json.loads(show(NXDI,f)), f"huggingface.co/google/gemma-3-27b-it config.json, as copied in aws-neuron/neuronx-distributed-inference@{NXDIREV[:8]} {f}")
# mlc-ai/mlc-llm's model presets that name their checkpoint (_name_or_path)
import ast
MLC="/work/.mirror/mlc-ai+mlc-llm/repo"; MLCREV="79d603f085f50500e9509fa01785ffa7ecfaaa93"
presets=ast.literal_eval([n for n in ast.parse(show(MLC,"python/mlc_llm/model/model_preset.py")).body if isinstance(n,(ast.Assign,ast.AnnAssign))][-1].value)
for k,cfg in presets.items():
    id=cfg.get("_name_or_path","")
    if id in ("Phi-3.5-mini-instruct","Phi-4-mini-instruct"): id="microsoft/"+id  # Microsoft's checkpoints, named without the organization
    if k=="gemma3_1b_it": id="google/gemma-3-1b-it"  # the preset's name is the checkpoint's
    # presets named after the one hub checkpoint of that name, their configs matching its published
    # parameter count (its Qwen1.5-1.8B-Chat, tied embeddings against the published 1.84B untied, is left out)
    if k=="minicpm_2b_sft_bf16": id="openbmb/MiniCPM-2B-sft-bf16"
    if k=="stablelm-2-zephyr-1_6b": id="stabilityai/stablelm-2-zephyr-1_6b"
    if id in ("codellama/CodeLlama-7b-hf","microsoft/Phi-3.5-mini-instruct","microsoft/Phi-4-mini-instruct","google/gemma-3-1b-it",
              "openbmb/MiniCPM-2B-sft-bf16","stabilityai/stablelm-2-zephyr-1_6b"):  # its llama2_13b keeps an old hub revision (max_position_embeddings 2048, now 4096)
        cfg={x:v for x,v in cfg.items() if x not in ("context_window_size","prefill_chunk_size")}  # mlc's own keys
        add(id, cfg, f"huggingface.co/{id} config.json, as copied in mlc-ai/mlc-llm@{MLCREV[:8]} python/mlc_llm/model/model_preset.py \"{k}\"")
# kevinstephano/thunder_model_blocks: config.json texts kept as Python raw strings (r'''{...}''') with their _name_or_path
import re
TMB="/work/.mirror/kevinstephano+thunder_model_blocks/repo"; TMBREV="5c083b0e1fc8c408308c6b602bfd4669a36a2901"
for f in git_files(TMB, lambda f: f.endswith("_config.py")):
    for m in re.finditer(r"r'''(\{.*?\})\s*'''", show(TMB,f), re.S):
        cfg=json.loads(m.group(1)); id=cfg.get("_name_or_path","")
        if id.count("/")==1:
            add(id, cfg, f"huggingface.co/{id} config.json, as copied in kevinstephano/thunder_model_blocks@{TMBREV[:8]} {f}", alias_dedupe=True)
# Retruth/deontic nlp_models/*/README.md: the configs transformers printed on loading each checkpoint
# (every field, _name_or_path the hub id); only the families the cost model reads as they are
DEO="/work/.mirror/Retruth+deontic/repo"; DEOREV="c5998c307e14e4761c662080a07b84ed1650e73f"
for f in git_files(DEO, lambda f: f.startswith("nlp_models/") and f.endswith("README.md")):
    txt=show(DEO,f); dec=json.JSONDecoder()
    for m in re.finditer(r'\{\s*"_name_or_path"', txt):
        try: cfg,_=dec.raw_decode(txt[m.start():])
        except ValueError: continue
        id=cfg["_name_or_path"]
        # a print shows torch_dtype as loaded: Llama-2-13b-hf publishes float16, printed bfloat16
        if cfg.get("model_type") in ("llama","gemma","gemma2","qwen2") and id.count("/")==1 and id!="meta-llama/Llama-2-13b-hf":
            add(id, cfg, f"huggingface.co/{id} config.json, as transformers printed it on loading (torch_dtype as loaded) in Retruth/deontic@{DEOREV[:8]} {f}", alias_dedupe=True)
# hand-entered configs from search results
for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hand", "*.json"))):
    e=json.load(open(f))
    add(e["id"], e["config"], e["source"], e.get("revision",""))
    if e.get("catalog"): entries[e["id"].lower()]["catalog"]=e["catalog"]
tags={"meta-llama/Meta-Llama-3.1-8B":("llama-3.1-8b","meta-llama/Llama-3.1-8B-Instruct"),
"meta-llama/Meta-Llama-3.1-70B":("llama-3.1-70b","meta-llama/Llama-3.1-70B-Instruct"),
"meta-llama/Llama-3.1-405B":("llama-3.1-405b","meta-llama/Llama-3.1-405B-Instruct"),
"Qwen/Qwen2.5-7B":("qwen2.5-7b","Qwen/Qwen2.5-7B-Instruct"),"Qwen/Qwen2.5-72B":("qwen2.5-72b","Qwen/Qwen2.5-72B-Instruct"),
"meta-llama/Meta-Llama-3-8B":("llama-3-8b","meta-llama/Meta-Llama-3-8B-Instruct"),
"meta-llama/Llama-3.2-1B":("llama-3.2-1b","meta-llama/Llama-3.2-1B-Instruct"),"meta-llama/Llama-3.2-3B":("llama-3.2-3b","meta-llama/Llama-3.2-3B-Instruct"),
"meta-llama/Llama-2-7b-hf":("llama-2-7b","meta-llama/Llama-2-7b-chat-hf"),"Qwen/Qwen3-8B":("qwen3-8b",""),"Qwen/Qwen3-32B":("qwen3-32b",""),
"openai/gpt-oss-20b":("gpt-oss-20b",""),"openai/gpt-oss-120b":("gpt-oss-120b",""),"mistralai/Mistral-7B-v0.3":("mistral-7b","mistralai/Mistral-7B-Instruct-v0.3")}
for id,(c,i) in tags.items():
    e=entries[id.lower()]; e["catalog"]=c
    if i: e["instruct"]=i
# Girafboy/pytorchKQI llms/<org>/<name>/config.json: copies of hub checkpoints' config.json files,
# added in 4adb1daa and removed in 33cd32c8 (read at 4adb1daa). Left out: the model types the cost
# model does not read as they are written (QWen v1's "qwen", whose intermediate_size is twice the
# MLP width, 12.0B for Qwen-7B against its published 7.7B; llava and multi_modality vision-language
# wrappers; encoders and GPT-2), the MLX conversions (4-bit MLX weights that vLLM does not load),
# and Baichuan2's bitsandbytes "-4bits" folders (a quantization_config without quant_method);
# KQIREAD leaves out its google/gemma-*-AWQ folders (Google publishes no AWQ checkpoint of that name)
KQI="/work/.mirror/Girafboy+pytorchKQI/repo"; KQIREV="4adb1daaa5cc32993c3150f58ec984d073c1d4cb"
KQIREAD=('01-ai/', 'baichuan-inc/', 'meta-llama/', 'Qwen/Qwen1.5-', 'Qwen/CodeQwen1.5-', 'Qwen/Qwen2-', 'deepseek-ai/')  # the folders read: ids with these prefixes
KQISKIP={"qwen","llava","multi_modality","bert","roberta","t5","gpt2","openai-gpt"}
for f in sorted(subprocess.run(["git","-C",KQI,"ls-tree","-r","--name-only",KQIREV,"llms/"],capture_output=True,text=True).stdout.split()):
    if not f.endswith("/config.json"): continue
    id=f[len("llms/"):-len("/config.json")]
    cfg=json.loads(subprocess.run(["git","-C",KQI,"show",KQIREV+":"+f],capture_output=True,text=True).stdout)
    q=cfg.get("quantization_config")
    if not id.startswith(KQIREAD) or cfg.get("model_type") in KQISKIP or id.endswith("-MLX") or (isinstance(q,dict) and "quant_method" not in q):
        continue
    if any(i.lower()==id.lower() for _,i in tags.values()):
        continue  # a catalog model's instruct sibling (meta-llama/Llama-2-7b-chat-hf): calibrate resolves it to the catalog
    add(id, cfg, f"huggingface.co/{id} config.json, as copied in Girafboy/pytorchKQI@{KQIREV[:8]} {f}", alias_dedupe=True)
EXCLUDE={"nemotron_h","nemotron-nas","kimi_k3","muse_glimmer","deepseek_v4","deepseek_ref","laguna","step3p7","mimo_v2_flash","minimax_m3","minimax_m3_vl","gemma4"}
def mixed(e):  # modelopt's per-layer MIXED_PRECISION (FP8 linear attention beside NVFP4 MLPs) is not modelled
    q=e["config"].get("quantization_config") or {}
    return q.get("quant_algo")=="MIXED_PRECISION" or (q.get("quantization") or {}).get("quant_algo")=="MIXED_PRECISION"
def excluded(e): return e["config"].get("model_type") in EXCLUDE or mixed(e)
left=[e["id"] for e in entries.values() if excluded(e)]
open(os.path.join(os.path.dirname(os.path.abspath(__file__)),"excluded.txt"),"w").write("\n".join(sorted(left))+"\n")
for k in [k for k,e in entries.items() if excluded(e)]: del entries[k]
out=sorted(entries.values(), key=lambda e:e["id"].lower())
print(len(out))
with open(sys.argv[1],'w') as f:  # one entry a line: hfmodels/models.json
    f.write('[\n'+',\n'.join(json.dumps(e,separators=(',',':')) for e in out)+'\n]\n')
