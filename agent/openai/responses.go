package openai

import (
	"github.com/agentpool/agentpool/agent"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// ResponsesTools returns tools as responses-API function tools, schemas passed through and
// strict mode off, as ChatTools does.
func ResponsesTools(tools []agent.ToolDef) []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		u := responses.ToolParamOfFunction(t.Name, schema(t.InputSchema), false)
		if t.Description != "" {
			u.OfFunction.Description = param.NewOpt(t.Description)
		}
		out = append(out, u)
	}
	return out
}

// ResponsesInput returns the request's messages as responses-API input items: user and
// assistant messages, each assistant tool call as a function_call item, each tool result as
// a function_call_output item whose output is text, or a list of input_text, input_image and
// input_file (a PDF) when the result has more than text. Audio has no place in a function
// output: a note says it was there.
func ResponsesInput(req *agent.Request) responses.ResponseInputParam {
	var out responses.ResponseInputParam
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleUser:
			var content responses.ResponseInputMessageContentListParam
			for _, p := range parts(m, false, false) {
				if p.kind == "image" {
					img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
					img.OfInputImage.ImageURL = param.NewOpt(p.dataURL())
					content = append(content, img)
					continue
				}
				content = append(content, responses.ResponseInputContentParamOfInputText(p.text))
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		case agent.RoleAssistant:
			if t := m.Text(); t != "" {
				out = append(out, responses.ResponseInputItemParamOfMessage(t, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(arguments(c), c.ID, c.Name))
			}
		case agent.RoleTool:
			ps := parts(m, false, true)
			var item responses.ResponseInputItemUnionParam
			if binary(ps) {
				item = responses.ResponseInputItemParamOfFunctionCallOutput(outputItems(ps))
			} else {
				item = responses.ResponseInputItemParamOfFunctionCallOutput(joinText(ps))
			}
			item.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
			out = append(out, item)
		}
	}
	return out
}

func binary(ps []part) bool {
	for _, p := range ps {
		if p.kind != "" {
			return true
		}
	}
	return false
}

func outputItems(ps []part) responses.ResponseFunctionCallOutputItemListParam {
	out := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(ps))
	for _, p := range ps {
		switch p.kind {
		case "image":
			out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: param.NewOpt(p.dataURL())}})
		case "file":
			out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputFile: &responses.ResponseInputFileContentParam{
				FileData: param.NewOpt(p.dataURL()), Filename: param.NewOpt(p.name)}})
		default:
			out = append(out, responses.ResponseFunctionCallOutputItemParamOfInputText(p.text))
		}
	}
	return out
}

// ResponsesParams returns the responses-API request for req: the instructions (Static, then
// Dynamic), the input items and the tools.
func ResponsesParams(model string, req *agent.Request) responses.ResponseNewParams {
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(model),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: ResponsesInput(req)}}
	if s := system(req.Instructions); s != "" {
		p.Instructions = param.NewOpt(s)
	}
	if len(req.Tools) > 0 {
		p.Tools = ResponsesTools(req.Tools)
	}
	return p
}
